import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import type { AdminPrincipal } from '@cp/auth';
import { InjectConfig, parseWebhookUrl, resolveAndCheck, type AppConfig } from '@cp/common';
import { AuditWriter } from '@cp/db';
import { noticeWebhookPolicy, NoticeScanService, NoticesRepository, type NoticeStatus } from '@cp/jobs';
import { InputValidationError, notFound, validateInput } from '../common/errors';
import type { DeprecationNoticeModel, NotificationEndpointWithSecretModel } from './dto/notifications.model';
import { NotificationEndpointsRepository, type EndpointRecord } from './notification-endpoints.repository';

const tenantId = z.string().max(63, 'must be at most 63 characters');
const limitSchema = z.number().int().min(1, 'must be at least 1').max(500, 'must be at most 500');

/**
 * Tenants' notification endpoints and the notices sent to them (issue 21). An endpoint URL gets
 * the SSRF rules of push notifications when it is set (parsed, resolved, every address checked)
 * and again on every delivery (safeFetch pins the checked address).
 */
@Injectable()
export class NotificationsService {
  constructor(
    private readonly endpoints: NotificationEndpointsRepository,
    private readonly notices: NoticesRepository,
    private readonly scans: NoticeScanService,
    private readonly audit: AuditWriter,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  async setEndpoint(principal: AdminPrincipal, input: { tenantId: string; url: string }): Promise<NotificationEndpointWithSecretModel> {
    const tenant = validateInput(tenantId, input.tenantId, '$.tenantId');
    if (!(await this.endpoints.tenantExists(tenant))) throw notFound('tenant', tenant);
    const policy = noticeWebhookPolicy(this.config);
    const parsed = parseWebhookUrl(input.url, policy);
    if (!parsed.ok) throw new InputValidationError([{ path: '$.url', message: parsed.reason }]);
    const checked = await resolveAndCheck(parsed.url, policy);
    if (!checked.ok) throw new InputValidationError([{ path: '$.url', message: checked.reason }]);
    const url = parsed.url.href;
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const saved = await this.endpoints.upsert(tenant, url, secret, principal.subject, (tx) =>
      this.audit.record(tx, principal.subject, [
        // The secret never enters the audit log.
        { action: 'notification-endpoint.set', targetType: 'tenant', targetId: tenant, after: { url } },
      ]),
    );
    return { ...saved, secret };
  }

  async deleteEndpoint(principal: AdminPrincipal, tenant: string): Promise<EndpointRecord> {
    const deleted = await this.endpoints.delete(validateInput(tenantId, tenant, '$.tenantId'), (tx) =>
      this.audit.record(tx, principal.subject, [{ action: 'notification-endpoint.delete', targetType: 'tenant', targetId: tenant }]),
    );
    if (!deleted) throw notFound('notification endpoint', tenant);
    return deleted;
  }

  async listEndpoints(limit: number): Promise<EndpointRecord[]> {
    return this.endpoints.list(validateInput(limitSchema, limit, '$.limit'));
  }

  async listNotices(status: NoticeStatus | null, tenant: string | null, limit: number): Promise<DeprecationNoticeModel[]> {
    const rows = await this.notices.list(status, tenant, validateInput(limitSchema, limit, '$.limit'));
    return rows.map((r) => ({ ...r, status: r.status as DeprecationNoticeModel['status'] }));
  }

  /** A dead notice back to pending and queued again (after the tenant fixed its endpoint). */
  async redeliver(id: string): Promise<DeprecationNoticeModel> {
    const notice = await this.notices.find(id);
    if (!notice) throw notFound('deprecation notice', id);
    if (!(await this.notices.revive(id)))
      throw new InputValidationError([{ path: '$.id', message: `notice ${id} is ${notice.status}: only a dead notice is redelivered` }]);
    await this.scans.enqueuePending();
    const revived = (await this.notices.find(id))!;
    return { ...revived, status: revived.status as DeprecationNoticeModel['status'] };
  }
}

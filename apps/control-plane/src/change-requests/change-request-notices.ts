import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { InjectConfig, type AppConfig } from '@cp/common';
import { PrismaService } from '@cp/db';
import { NoticeScanService } from '@cp/jobs';
import type { ChangeRequestRow } from './change-requests.repository';

export type ChangeRequestEvent =
  'change_request.created' | 'change_request.approved' | 'change_request.rejected' | 'change_request.break_glass';

/**
 * Change-request notices go out the way deprecation notices do (ADR 0182, 0184): a row in the
 * notice table per tenant endpoint in CHANGE_REQUEST_NOTICE_TENANTS, delivered by the worker's
 * notice queue, signed (Standard Webhooks) with the tenant endpoint's secret, retried and
 * dead-lettered there. The row's unique key (tenant, agent, "*", event, request id) sends each once.
 */
@Injectable()
export class ChangeRequestNotices {
  private readonly logger = new Logger(ChangeRequestNotices.name);

  constructor(
    private readonly prisma: PrismaService,
    private readonly scans: NoticeScanService,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  async announce(event: ChangeRequestEvent, request: ChangeRequestRow): Promise<number> {
    const tenants = this.config.CHANGE_REQUEST_NOTICE_TENANTS;
    if (tenants.length === 0) return 0;
    const data = {
      changeRequestId: request.id,
      agentId: request.agentId,
      status: request.status,
      kinds: request.kinds,
      changes: request.changes,
      baseRevision: request.baseRevision,
      author: request.author,
      decidedBy: request.decidedBy,
      decisionComment: request.decisionComment,
      breakGlassReason: request.breakGlassReason,
      appliedRevision: request.appliedRevision,
    };
    const { count } = await this.prisma.deprecationNotice.createMany({
      data: tenants.map((tenantId) => ({
        id: randomUUID(),
        tenantId,
        agentId: request.agentId,
        capabilityId: '*',
        event,
        eventKey: request.id,
        payload: { type: event, timestamp: new Date().toISOString(), data: { ...data, tenantId } },
      })),
      skipDuplicates: true,
    });
    // A queue away must not undo an approval that is already committed: the next scan sends it.
    await this.scans.enqueuePending().catch((error: Error) => this.logger.warn(`change-request notices queued later: ${error.message}`));
    return count;
  }
}

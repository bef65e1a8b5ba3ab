import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import type { AdminPrincipal } from '@cp/auth';
import { AuditWriter } from '@cp/db';
import { notFound, validateInput } from '../common/errors';
import { decodeCursor, pageSize, toPage, type Page, type PageInput } from '../common/graphql/pagination';
import type { TenantInput, TenantModel } from './dto/tenant.model';
import { TenantError, TenantErrorCode } from './tenants.errors';
import { TenantsRepository } from './tenants.repository';

const tenantSchema = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be a lowercase slug (letters, digits, "-")'),
  name: z.string().trim().min(1, 'is required').max(200),
});

/** Tenants are registry-wide: platform admins change them (enforced by @Roles on the mutations); everyone reads. */
@Injectable()
export class TenantsService {
  constructor(
    private readonly tenants: TenantsRepository,
    private readonly audit: AuditWriter,
  ) {}

  async get(id: string): Promise<TenantModel> {
    return (await this.tenants.find(id)) ?? Promise.reject(notFound('tenant', id));
  }

  async list(page: PageInput | undefined): Promise<Page<TenantModel>> {
    const size = pageSize(page);
    const after = decodeCursor(page?.after)?.[0];
    return toPage(await this.tenants.list(after === undefined ? undefined : String(after), size + 1), size, (t) => [t.id]);
  }

  async create(principal: AdminPrincipal, input: TenantInput): Promise<TenantModel> {
    const tenant = validateInput(tenantSchema, input);
    if (await this.tenants.find(tenant.id))
      throw new TenantError(TenantErrorCode.AlreadyExists, `tenant "${tenant.id}" already exists`, { id: tenant.id });
    return this.tenants.create(tenant, (tx) =>
      this.audit.record(tx, principal.subject, [{ action: 'tenant.create', targetType: 'tenant', targetId: tenant.id, after: tenant }]),
    );
  }

  async update(principal: AdminPrincipal, input: TenantInput): Promise<TenantModel> {
    const tenant = validateInput(tenantSchema, input);
    const before = await this.get(tenant.id);
    return this.tenants.update(tenant, (tx) =>
      this.audit.record(tx, principal.subject, [
        {
          action: 'tenant.update',
          targetType: 'tenant',
          targetId: tenant.id,
          before: { id: before.id, name: before.name },
          after: tenant,
        },
      ]),
    );
  }

  /** Refused while an agent's previews or a manifest's tenant list name it: removing it would change projections silently. */
  async delete(principal: AdminPrincipal, id: string): Promise<TenantModel> {
    const before = await this.get(id);
    const used = await this.tenants.usedBy(id);
    if (used.optIns.length || used.manifests.length) {
      throw new TenantError(
        TenantErrorCode.InUse,
        `tenant "${id}" is still used (preview opt-ins of ${used.optIns.join(', ') || 'no agent'}; manifests ${used.manifests.join(', ') || 'none'}): remove those first`,
        used,
      );
    }
    return this.tenants.delete(id, (tx) =>
      this.audit.record(tx, principal.subject, [
        { action: 'tenant.delete', targetType: 'tenant', targetId: id, before: { id, name: before.name } },
      ]),
    );
  }
}

import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import type { AdminPrincipal } from '@cp/auth';
import { AuditWriter } from '@cp/db';
import { notFound, validateInput } from '../common/errors';
import { decodeCursor, pageSize, toPage, type Page, type PageInput } from '../common/graphql/pagination';
import type { ScopeInput, ScopeModel } from './dto/scope.model';
import { ScopeError, ScopeErrorCode } from './scopes.errors';
import { ScopesRepository } from './scopes.repository';

const scopeSchema = z.object({
  name: z.string().regex(/^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*$/, 'must look like "recon.run" (lowercase words joined by dots)'),
  description: z.string().trim().min(1, 'is required').max(1000),
});

/** Scopes are registry-wide: platform admins change them (@Roles on the mutations); everyone reads. */
@Injectable()
export class ScopesService {
  constructor(
    private readonly scopes: ScopesRepository,
    private readonly audit: AuditWriter,
  ) {}

  async get(name: string): Promise<ScopeModel> {
    return (await this.scopes.find(name)) ?? Promise.reject(notFound('scope', name));
  }

  async list(page: PageInput | undefined): Promise<Page<ScopeModel>> {
    const size = pageSize(page);
    const after = decodeCursor(page?.after)?.[0];
    return toPage(await this.scopes.list(after === undefined ? undefined : String(after), size + 1), size, (s) => [s.name]);
  }

  async create(principal: AdminPrincipal, input: ScopeInput): Promise<ScopeModel> {
    const scope = validateInput(scopeSchema, input);
    if (await this.scopes.find(scope.name))
      throw new ScopeError(ScopeErrorCode.AlreadyExists, `scope "${scope.name}" already exists`, { name: scope.name });
    return this.scopes.create(scope, (tx) =>
      this.audit.record(tx, principal.subject, [{ action: 'scope.create', targetType: 'scope', targetId: scope.name, after: scope }]),
    );
  }

  async update(principal: AdminPrincipal, input: ScopeInput): Promise<ScopeModel> {
    const scope = validateInput(scopeSchema, input);
    const before = await this.get(scope.name);
    return this.scopes.update(scope, (tx) =>
      this.audit.record(tx, principal.subject, [
        {
          action: 'scope.update',
          targetType: 'scope',
          targetId: scope.name,
          before: { name: before.name, description: before.description },
          after: scope,
        },
      ]),
    );
  }

  /** Refused while a manifest requires it: those manifests would become uncallable. */
  async delete(principal: AdminPrincipal, name: string): Promise<ScopeModel> {
    const before = await this.get(name);
    const manifests = await this.scopes.requiredBy(name);
    if (manifests.length)
      throw new ScopeError(ScopeErrorCode.InUse, `scope "${name}" is required by ${manifests.join(', ')}: change those manifests first`, {
        manifests,
      });
    return this.scopes.delete(name, (tx) =>
      this.audit.record(tx, principal.subject, [
        { action: 'scope.delete', targetType: 'scope', targetId: name, before: { name, description: before.description } },
      ]),
    );
  }
}

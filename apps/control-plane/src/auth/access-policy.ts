import { Injectable } from '@nestjs/common';
import type { AdminPrincipal } from '@cp/auth';
import { CommonError, CommonErrorCode, notFound } from '../common/errors';

/** What an access check is about, so a refusal can read exactly like "not found". */
export interface ObjectRef {
  type: string;
  id: string;
}

/**
 * Per-object rules of the admin API. platform-admin: everything. viewer: reads everything,
 * changes nothing. team-admin: reads and changes only what its teams own. An object a caller may
 * not read answers NOT_FOUND with the very message a missing one gets, so ids cannot be probed.
 */
@Injectable()
export class AccessPolicy {
  canReadAll(principal: AdminPrincipal): boolean {
    return principal.roles.includes('platform-admin') || principal.roles.includes('viewer');
  }

  canRead(principal: AdminPrincipal, ownerTeamId: string): boolean {
    return this.canReadAll(principal) || (principal.roles.includes('team-admin') && principal.teams.includes(ownerTeamId));
  }

  canWrite(principal: AdminPrincipal, ownerTeamId: string): boolean {
    return principal.roles.includes('platform-admin') || (principal.roles.includes('team-admin') && principal.teams.includes(ownerTeamId));
  }

  /** Team ids a list must be restricted to; undefined = no restriction. */
  readableTeams(principal: AdminPrincipal): string[] | undefined {
    return this.canReadAll(principal) ? undefined : principal.roles.includes('team-admin') ? [...principal.teams] : [];
  }

  assertCanRead(principal: AdminPrincipal, ownerTeamId: string, object: ObjectRef): void {
    if (!this.canRead(principal, ownerTeamId)) throw notFound(object.type, object.id);
  }

  /** Unreadable → NOT_FOUND (the caller may not know it exists); readable but not writable → FORBIDDEN. */
  assertCanWrite(principal: AdminPrincipal, ownerTeamId: string, object: ObjectRef): void {
    this.assertCanRead(principal, ownerTeamId, object);
    if (!this.canWrite(principal, ownerTeamId)) {
      throw new CommonError(CommonErrorCode.Forbidden, `${principal.subject} may not change ${object.type} "${object.id}"`, {
        type: object.type,
        id: object.id,
      });
    }
  }

  /** Registry-wide objects (tenants, scopes): platform admins only. */
  assertPlatformAdmin(principal: AdminPrincipal, what: string): void {
    if (!principal.roles.includes('platform-admin')) {
      throw new CommonError(CommonErrorCode.Forbidden, `only a platform-admin may ${what}`);
    }
  }
}

import { SetMetadata } from '@nestjs/common';
import type { AdminRole } from '@cp/auth';

export const ROLES_KEY = 'cp:admin-roles';

/** Roles allowed to call this entry point. Without it: any admin role for queries, platform-admin and team-admin for mutations. */
export const Roles = (...roles: AdminRole[]) => SetMetadata(ROLES_KEY, roles);

export const READ_ROLES: readonly AdminRole[] = ['platform-admin', 'team-admin', 'viewer'];
export const WRITE_ROLES: readonly AdminRole[] = ['platform-admin', 'team-admin'];

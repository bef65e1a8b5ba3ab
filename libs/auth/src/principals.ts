/**
 * Who is calling. Every token carries `token_use`, so a token minted for one purpose (a node
 * syncing, a partner agent calling a node) is never accepted for another (the admin API).
 */
export type TokenUse = 'admin' | 'node' | 'a2a' | 'tool' | 'upstream';

export const ADMIN_ROLES = ['platform-admin', 'team-admin', 'viewer'] as const;
export type AdminRole = (typeof ADMIN_ROLES)[number];

/** A platform team member or CI job using the admin API. */
export interface AdminPrincipal {
  kind: 'admin';
  subject: string;
  roles: AdminRole[];
  /** Teams a team-admin administers. */
  teams: string[];
}

/** An agent node instance syncing its agent's projections. */
export interface NodePrincipal {
  kind: 'node';
  subject: string;
  agentId: string;
}

/** A partner agent calling an agent node (A2A). */
export interface A2APrincipal {
  kind: 'a2a';
  subject: string;
  tenant: string;
  scopes: string[];
  /** The token's exp (epoch seconds): what the caller's credential is good until. */
  expiresAt: number;
}

/** A downscoped credential a node's tool gateway attaches to a tool call (token exchange). */
export interface ToolPrincipal {
  kind: 'tool';
  subject: string;
  tenant: string;
  scopes: string[];
  tool: string;
  capabilityId: string;
  actor: string;
}

/**
 * What an upstream agent behind a gateway node receives (token exchange, ADR 0231): the caller is
 * the subject, the node is the actor (`act.sub`), scopes are the caller's ∩ the capability's.
 */
export interface UpstreamPrincipal {
  kind: 'upstream';
  subject: string;
  tenant: string;
  scopes: string[];
  capabilityId: string;
  agentId: string;
  /** The node acting for the caller (`act.sub`). */
  actor: string;
}

export type Principal = AdminPrincipal | NodePrincipal | A2APrincipal | ToolPrincipal | UpstreamPrincipal;

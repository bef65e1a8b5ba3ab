import type { AppConfig } from '@cp/common';
import { JwtVerifier } from './jwt-verifier';
import { TokenSigner } from './token-signer';

/** Admin and node tokens: audience JWT_AUDIENCE. */
export function controlPlaneVerifier(config: AppConfig): JwtVerifier {
  return new JwtVerifier({
    algorithms: config.JWT_ALGORITHMS,
    secret: config.JWT_SECRET,
    jwksFile: config.JWT_JWKS_FILE,
    jwksUrl: config.JWT_JWKS_URL,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
  });
}

/** Tokens partner agents present to agent nodes: audience A2A_JWT_AUDIENCE. */
export function a2aVerifier(config: AppConfig): JwtVerifier {
  return new JwtVerifier({
    algorithms: config.JWT_ALGORITHMS,
    secret: config.JWT_SECRET,
    jwksFile: config.JWT_JWKS_FILE,
    jwksUrl: config.JWT_JWKS_URL,
    issuer: config.A2A_JWT_ISSUER,
    audience: config.A2A_JWT_AUDIENCE,
  });
}

export function tokenSigner(config: AppConfig): TokenSigner {
  return new TokenSigner(config.JWT_SECRET);
}

/** Convenience for tests and demo tokens, mirroring the claims each verifier expects. */
export function mintAdminToken(config: AppConfig, subject: string, roles: string[], teams: string[] = [], expiresIn = 3600): string {
  return tokenSigner(config).sign({
    use: 'admin',
    subject,
    audience: config.JWT_AUDIENCE,
    issuer: config.JWT_ISSUER,
    expiresIn,
    claims: { roles, teams },
  });
}
export function mintNodeToken(config: AppConfig, agentId: string, expiresIn = 3600): string {
  return tokenSigner(config).sign({
    use: 'node',
    subject: `node-token:${agentId}`,
    audience: config.JWT_AUDIENCE,
    issuer: config.JWT_ISSUER,
    expiresIn,
    claims: { agent_id: agentId },
  });
}
export function mintA2AToken(config: AppConfig, subject: string, tenant: string, scopes: string[], expiresIn = 3600): string {
  return tokenSigner(config).sign({
    use: 'a2a',
    subject,
    audience: config.A2A_JWT_AUDIENCE,
    issuer: config.A2A_JWT_ISSUER,
    expiresIn,
    claims: { tenant, scope: scopes.join(' ') },
  });
}

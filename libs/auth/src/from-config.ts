import type { AppConfig } from '@cp/common';
import { JwtVerifier } from './jwt-verifier';
import type { TokenUse } from './principals';
import { KeyRing, KeyRingError } from './key-ring';
import { TokenSigner } from './token-signer';

/** The configured lifetime limit of every token kind (JWT_MAX_LIFETIME_*_SECONDS). */
export function maxLifetimes(config: AppConfig): Record<TokenUse, number> {
  return {
    admin: config.JWT_MAX_LIFETIME_ADMIN_SECONDS,
    node: config.JWT_MAX_LIFETIME_NODE_SECONDS,
    a2a: config.JWT_MAX_LIFETIME_A2A_SECONDS,
    tool: config.JWT_MAX_LIFETIME_TOOL_SECONDS,
    upstream: config.JWT_MAX_LIFETIME_TOOL_SECONDS,
  };
}

/** Admin and node tokens: audience JWT_AUDIENCE. */
export function controlPlaneVerifier(config: AppConfig): JwtVerifier {
  return new JwtVerifier({
    algorithms: config.JWT_ALGORITHMS,
    secret: config.JWT_SECRET,
    jwksFile: config.JWT_JWKS_FILE,
    jwksUrl: config.JWT_JWKS_URL,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    maxLifetimeSeconds: maxLifetimes(config),
  });
}

/** The audience of one agent's a2a tokens: A2A_JWT_AUDIENCE with {agentId} filled in (ADR 0065). */
export function a2aAudience(config: AppConfig, agentId: string = config.AGENT_ID): string {
  return config.A2A_JWT_AUDIENCE.replaceAll('{agentId}', agentId);
}

/** Tokens partner agents present to ONE agent (default: this node's AGENT_ID): its own audience. */
export function a2aVerifier(config: AppConfig, agentId: string = config.AGENT_ID): JwtVerifier {
  return new JwtVerifier({
    algorithms: config.JWT_ALGORITHMS,
    secret: config.JWT_SECRET,
    jwksFile: config.JWT_JWKS_FILE,
    jwksUrl: config.JWT_JWKS_URL,
    issuer: config.A2A_JWT_ISSUER,
    audience: a2aAudience(config, agentId),
    maxLifetimeSeconds: maxLifetimes(config),
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
/** An a2a token for one agent (default: config.AGENT_ID, the demo agent). */
export function mintA2AToken(
  config: AppConfig,
  subject: string,
  tenant: string,
  scopes: string[],
  expiresIn = 3600,
  agentId: string = config.AGENT_ID,
): string {
  return tokenSigner(config).sign({
    use: 'a2a',
    subject,
    audience: a2aAudience(config, agentId),
    issuer: config.A2A_JWT_ISSUER,
    expiresIn,
    claims: { tenant, scope: scopes.join(' ') },
  });
}

/**
 * The signing key ring of this deployment (ADR 0130): SIGNING_KEYS, else SIGNING_KEYS_FILE, else
 * (development only) a key generated once into SIGNING_DEV_KEY_FILE. Production without real keys
 * refuses to start (fail closed, like ADR 0068), naming the variables.
 */
export function keyRingFromConfig(config: AppConfig): KeyRing {
  if (config.SIGNING_KEYS) return new KeyRing({ kind: 'inline', json: config.SIGNING_KEYS, variable: 'SIGNING_KEYS' });
  if (config.SIGNING_KEYS_FILE) return new KeyRing({ kind: 'file', path: config.SIGNING_KEYS_FILE, variable: 'SIGNING_KEYS_FILE' });
  if (config.NODE_ENV === 'production') {
    throw new KeyRingError(
      'SIGNING_KEYS or SIGNING_KEYS_FILE must be set in production: cards, bundles and tool tokens are signed with them (a generated development key is refused)',
    );
  }
  return new KeyRing({ kind: 'dev', path: config.SIGNING_DEV_KEY_FILE });
}

/** Tool tokens: ES256 with the key ring's active key (kid in the header); tools verify with the JWKS. */
export function toolTokenSigner(keyRing: KeyRing): TokenSigner {
  return new TokenSigner({ keyRing });
}

/**
 * How a tool verifies tool tokens: ES256 only, keys from the pinned JWKS (SIGNING_JWKS_URL, a
 * URL in configuration), never the shared secret, so a tool can verify but cannot mint.
 */
export function toolTokenVerifier(
  config: AppConfig,
  audience: string,
  options: { fetchJwks?: (url: string) => Promise<unknown> } = {},
): JwtVerifier {
  return new JwtVerifier({
    algorithms: ['ES256'],
    jwksUrl: config.SIGNING_JWKS_URL,
    issuer: config.JWT_ISSUER,
    audience,
    maxLifetimeSeconds: maxLifetimes(config),
    jwksCooldownMs: config.SIGNING_JWKS_COOLDOWN_MS,
    jwksMaxAgeMs: config.SIGNING_JWKS_CACHE_SECONDS * 1000,
    fetchJwks: options.fetchJwks,
  });
}

import { createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { AuthError, AuthErrorCode } from './auth.errors';

export type JwtAlgorithm = 'HS256' | 'RS256' | 'ES256';

export interface KeySourceOptions {
  algorithms: JwtAlgorithm[];
  /** HS256 shared secret. */
  secret?: string;
  /** A JWKS document on disk, or at a URL (fetched, cached, refreshed on an unknown kid). */
  jwksFile?: string;
  jwksUrl?: string;
  /** Least time between two fetches of jwksUrl on an unknown kid (default 30 s). */
  jwksCooldownMs?: number;
  /** A fetched JWKS is fetched again on the next verification after this long (default: never), so removed keys stop verifying. */
  jwksMaxAgeMs?: number;
  /** Injectable for tests. */
  fetchJwks?: (url: string) => Promise<unknown>;
}

interface Jwk {
  kty: string;
  kid?: string;
  alg?: string;
  use?: string;
  [key: string]: unknown;
}

const KTY_FOR: Record<Exclude<JwtAlgorithm, 'HS256'>, string> = { RS256: 'RSA', ES256: 'EC' };
const MIN_REFRESH_MS = 30_000;

/**
 * Chooses the verification key from the token header. The algorithm decides the key type,
 * never the other way round: HS256 only ever gets the shared secret and RS256/ES256 only ever
 * get a public key of their own type, which closes algorithm confusion; `none` is never allowed.
 */
export class KeyResolver {
  private keys: { kid?: string; kty: string; alg?: string; key: KeyObject }[] = [];
  private fetchedAt = 0;
  private loading: Promise<void> | undefined;
  private secretKey: KeyObject | undefined;

  constructor(private readonly options: KeySourceOptions) {
    if (options.algorithms.includes('HS256') && !options.secret) throw new Error('HS256 needs a secret');
    // A KeyObject made once: handed a string, jsonwebtoken first tries (and fails) to parse it as
    // a public key on every verification, which cost ~0.3 ms of CPU per request here.
    if (options.secret) this.secretKey = createSecretKey(Buffer.from(options.secret, 'utf8'));
    const asymmetric = options.algorithms.some((a) => a !== 'HS256');
    if (asymmetric && !options.jwksFile && !options.jwksUrl) throw new Error('RS256/ES256 need JWT_JWKS_FILE or JWT_JWKS_URL');
    if (options.jwksFile) this.keys = parseJwks(JSON.parse(readFileSync(options.jwksFile, 'utf8')));
  }

  async resolve(header: { alg?: string; kid?: string }): Promise<string | KeyObject> {
    const alg = header.alg as JwtAlgorithm | undefined;
    if (!alg || !this.options.algorithms.includes(alg)) {
      throw new AuthError(
        AuthErrorCode.AlgorithmNotAllowed,
        // The header's own text is never echoed: it is the caller's, and may hold anything.
        `the token algorithm is not accepted (accepted: ${this.options.algorithms.join(', ')})`,
      );
    }
    if (alg === 'HS256') return this.secretKey!;
    const age = Date.now() - this.fetchedAt;
    if (this.options.jwksUrl && this.fetchedAt > 0 && this.options.jwksMaxAgeMs !== undefined && age > this.options.jwksMaxAgeMs) {
      await this.refresh().catch(() => undefined); // an unreachable JWKS keeps the keys it had
    }
    let key = this.find(alg, header.kid);
    if (!key && this.options.jwksUrl && Date.now() - this.fetchedAt > (this.options.jwksCooldownMs ?? MIN_REFRESH_MS)) {
      await this.refresh();
      key = this.find(alg, header.kid);
    }
    if (!key) throw new AuthError(AuthErrorCode.UnknownKey, `no trusted ${alg} key matches the token${header.kid ? "'s kid" : ''}`);
    return key;
  }

  private find(alg: Exclude<JwtAlgorithm, 'HS256'>, kid: string | undefined): KeyObject | undefined {
    const candidates = this.keys.filter((k) => k.kty === KTY_FOR[alg] && (!k.alg || k.alg === alg));
    const match = kid === undefined ? (candidates.length === 1 ? candidates[0] : undefined) : candidates.find((k) => k.kid === kid);
    return match?.key;
  }

  private refresh(): Promise<void> {
    this.loading ??= (async () => {
      try {
        const fetchJwks = this.options.fetchJwks ?? defaultFetchJwks;
        this.keys = parseJwks(await fetchJwks(this.options.jwksUrl!));
        this.fetchedAt = Date.now();
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }
}

async function defaultFetchJwks(url: string): Promise<unknown> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
  if (!res.ok) throw new AuthError(AuthErrorCode.UnknownKey, `JWKS endpoint answered ${res.status}`);
  return res.json();
}

function parseJwks(doc: unknown): { kid?: string; kty: string; alg?: string; key: KeyObject }[] {
  const keys = (doc as { keys?: Jwk[] })?.keys;
  if (!Array.isArray(keys)) throw new Error('JWKS document has no "keys" array');
  return keys
    .filter((jwk) => (jwk.kty === 'RSA' || jwk.kty === 'EC') && (jwk.use === undefined || jwk.use === 'sig'))
    .map((jwk) => ({ kid: jwk.kid, kty: jwk.kty, alg: jwk.alg, key: createPublicKey({ key: jwk, format: 'jwk' }) }));
}

/**
 * The control plane's signing key ring (ADR 0130): ES256 keys, each with a kid and a state.
 *
 * - `active`: signs everything (cards, node bundles, tool tokens). Exactly one.
 * - `next`: published in the JWKS but never signs, so every verifier knows it before it is
 *   promoted to active (add next → wait one JWKS cache lifetime → promote).
 * - `retired`: published only, so what it signed stays verifiable until it expires; remove it
 *   from the document once nothing it signed is still in use.
 *
 * The document (`SIGNING_KEYS` or `SIGNING_KEYS_FILE`) is JSON:
 * `{ "keys": [{ "kid": "k-2026-12", "state": "active", "privateKeyPem": "-----BEGIN PRIVATE KEY-----…" }, …] }`
 * with per key one of `privateKeyPem` (PKCS#8), `privateJwk`, `publicKeyPem` (SPKI), `publicJwk`;
 * the active key needs a private part. A file is re-read when its modification time changes.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export type KeyState = 'active' | 'next' | 'retired';
export const SIGNING_ALG = 'ES256';

export interface SigningKey {
  kid: string;
  alg: typeof SIGNING_ALG;
  privateKey: KeyObject;
}

/** A public key as published in the JWKS (RFC 7517). */
export interface PublicJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  kid: string;
  alg: typeof SIGNING_ALG;
  use: 'sig';
}

export interface KeyRingKey {
  kid: string;
  state: KeyState;
  publicKey: KeyObject;
  privateKey?: KeyObject;
}

export class KeyRingError extends Error {
  override readonly name = 'KeyRingError';
}

export type KeyRingSource =
  | { kind: 'inline'; json: string; variable: string }
  | { kind: 'file'; path: string; variable: string }
  /** Development: generated once into `path` (0600) and reused by every later start. */
  | { kind: 'dev'; path: string };

const STATES: readonly KeyState[] = ['active', 'next', 'retired'];
const KID = /^[A-Za-z0-9._:-]{1,64}$/;

export class KeyRing {
  private keys: KeyRingKey[] = [];
  private mtimeMs = -1;
  /** Bumped on every change of the keys: caches of signed things compare it. */
  generation = 0;

  constructor(readonly source: KeyRingSource) {
    this.load();
  }

  /** The one key that signs. */
  active(): SigningKey {
    const key = this.keys.find((k) => k.state === 'active')!;
    return { kid: key.kid, alg: SIGNING_ALG, privateKey: key.privateKey! };
  }

  list(): readonly KeyRingKey[] {
    return this.keys;
  }

  /** Every published key: active first, then next, then retired. */
  jwks(): { keys: PublicJwk[] } {
    const order = (k: KeyRingKey) => STATES.indexOf(k.state);
    return {
      keys: [...this.keys]
        .sort((a, b) => order(a) - order(b))
        .map((k) => {
          const jwk = k.publicKey.export({ format: 'jwk' }) as { x: string; y: string };
          return { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, kid: k.kid, alg: SIGNING_ALG, use: 'sig' };
        }),
    };
  }

  /**
   * Re-reads a file source when it changed. A document that no longer parses keeps the keys in
   * use (and throws, for the caller to log): a typo during a rotation must not stop signing.
   */
  reload(): boolean {
    if (this.source.kind !== 'file') return false;
    const mtime = statSync(this.source.path).mtimeMs;
    if (mtime === this.mtimeMs) return false;
    const before = JSON.stringify(this.jwks()) + this.active().kid;
    this.load();
    return JSON.stringify(this.jwks()) + this.active().kid !== before;
  }

  private load(): void {
    const source = this.source;
    let text: string;
    let where: string;
    if (source.kind === 'inline') {
      text = source.json;
      where = source.variable;
    } else if (source.kind === 'file') {
      where = `${source.variable} (${source.path})`;
      try {
        this.mtimeMs = statSync(source.path).mtimeMs;
        text = readFileSync(source.path, 'utf8');
      } catch (error) {
        throw new KeyRingError(`${where}: cannot read the key ring: ${(error as Error).message}`);
      }
    } else {
      where = `the development key ring ${source.path}`;
      text = readOrCreateDevKeyRing(source.path);
    }
    this.keys = parseKeyRing(text, where);
    this.generation++;
  }
}

/** Parses and checks a key ring document; every problem names where it is. */
export function parseKeyRing(text: string, where: string): KeyRingKey[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new KeyRingError(`${where}: not JSON`);
  }
  const entries = (doc as { keys?: unknown })?.keys;
  if (!Array.isArray(entries) || entries.length === 0) throw new KeyRingError(`${where}: expected {"keys": [ … ]} with at least one key`);
  const keys = entries.map((entry, i) => parseKey(entry, `${where}: keys[${i}]`));
  const kids = new Set<string>();
  for (const k of keys) {
    if (kids.has(k.kid)) throw new KeyRingError(`${where}: kid "${k.kid}" appears twice`);
    kids.add(k.kid);
  }
  const active = keys.filter((k) => k.state === 'active');
  if (active.length !== 1) throw new KeyRingError(`${where}: exactly one key must be "active" (found ${active.length})`);
  if (!active[0].privateKey) throw new KeyRingError(`${where}: the active key "${active[0].kid}" has no private key`);
  return keys;
}

function parseKey(entry: unknown, where: string): KeyRingKey {
  if (typeof entry !== 'object' || entry === null) throw new KeyRingError(`${where}: expected an object`);
  const e = entry as Record<string, unknown>;
  if (typeof e.kid !== 'string' || !KID.test(e.kid)) throw new KeyRingError(`${where}.kid: 1-64 characters of A-Z a-z 0-9 . _ : -`);
  if (!STATES.includes(e.state as KeyState)) throw new KeyRingError(`${where}.state: one of ${STATES.join(', ')}`);
  let privateKey: KeyObject | undefined;
  let publicKey: KeyObject;
  try {
    if (typeof e.privateKeyPem === 'string') privateKey = createPrivateKey({ key: e.privateKeyPem, format: 'pem' });
    else if (isObject(e.privateJwk)) privateKey = createPrivateKey({ key: e.privateJwk, format: 'jwk' });
    if (privateKey) publicKey = createPublicKey(privateKey);
    else if (typeof e.publicKeyPem === 'string') publicKey = createPublicKey({ key: e.publicKeyPem, format: 'pem' });
    else if (isObject(e.publicJwk)) publicKey = createPublicKey({ key: e.publicJwk, format: 'jwk' });
    else throw new KeyRingError(`${where}: needs privateKeyPem, privateJwk, publicKeyPem or publicJwk`);
  } catch (error) {
    if (error instanceof KeyRingError) throw error;
    throw new KeyRingError(`${where}: the key does not parse (${(error as Error).message})`);
  }
  const details = publicKey.asymmetricKeyDetails;
  if (publicKey.asymmetricKeyType !== 'ec' || details?.namedCurve !== 'prime256v1') {
    throw new KeyRingError(`${where}: must be an EC P-256 key (ES256)`);
  }
  return { kid: e.kid, state: e.state as KeyState, publicKey, privateKey };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A fresh ES256 key as a key ring entry (development, tests, and `npm run keys` style tooling). */
export function generateKeyRingEntry(kid: string, state: KeyState = 'active'): { kid: string; state: KeyState; privateJwk: object } {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { kid, state, privateJwk: privateKey.export({ format: 'jwk' }) };
}

/**
 * The development key ring: created once with mode 0600, then read on every start. Written to a
 * temporary file and hard-linked into place (link fails if the name exists), so a control plane
 * and a worker starting together end up with the same whole key, never a half-written file.
 */
function readOrCreateDevKeyRing(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new KeyRingError(`${path}: ${(error as Error).message}`);
  }
  const kid = `dev-${new Date().toISOString().slice(0, 10)}-${randomBytes(3).toString('hex')}`;
  const text = `${JSON.stringify({ keys: [generateKeyRingEntry(kid)] }, null, 2)}\n`;
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(tmp, text, { mode: 0o600, flag: 'wx' });
    linkSync(tmp, path);
    return text;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(path, 'utf8');
    throw new KeyRingError(`${path}: cannot write the development key ring: ${(error as Error).message}`);
  } finally {
    rmSync(tmp, { force: true });
  }
}

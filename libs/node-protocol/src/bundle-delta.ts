/**
 * Bundle deltas (issue 18, ADR 0155): what a node that already serves revision B needs to rebuild
 * the FULL bundle of revision T, instead of T's whole bundle (about 2 MB for 10,000 manifests).
 *
 * The delta is a keyed diff of the bundle document (everything but contentHash, generatedAt and
 * the optional signature, which it carries as they are): arrays of objects named by `id`,
 * `capabilityId` or `key` (manifests, policy entries, router entries, classes) are patched by that
 * name (removed, changed, added at their index); other objects member by member; everything else
 * is replaced whole when it changed, except long strings (card bodies), which are spliced: the
 * common prefix and suffix are kept, so a card with one skill changed costs that skill's bytes,
 * and the rebuilt body is byte for byte the target's (the content hash covers it; a signature
 * over the card's bytes verifies the same).
 * The node applies it to its current bundle, recomputes the content hash, refuses the result
 * unless it equals the target's contentHash, and then checks it like any full bundle.
 */
import { createHash } from 'node:crypto';
import { derivedNodeBundleContentHash, nodeBundleContentHash, sealNodeBundle, type NodeBundle } from '@cp/capabilities';

/** Request header: the ETag of the bundle the node serves, asking for a delta from it. */
export const BUNDLE_DELTA_BASE_HEADER = 'bundle-delta-base';
/** Content type of a delta answer (a full bundle is application/json). */
export const NODE_BUNDLE_DELTA_TYPE = 'application/vnd.cp.node-bundle-delta+json';
export const NODE_BUNDLE_DELTA_FORMAT = 1;
/** A bundle ETag (nodeBundleEtag): `"r<revision>-<64 hex>"`. */
const BUNDLE_ETAG = /^"r(\d{1,10})-([0-9a-f]{64})"$/;

/** One change to a value: replace it; patch an object's members; patch a keyed array. */
export type DeltaPatch =
  | { set: unknown }
  | { fields: Record<string, DeltaPatch>; drop?: string[] }
  | { by: string; drop?: string[]; change?: [string, DeltaPatch][]; add?: [number, unknown][] }
  /** A long string (a card body): hunks [start, removed, text] in the base's positions, ascending. */
  | { splice: [start: number, removed: number, text: string][] };

export interface NodeBundleDelta {
  kind: 'node-bundle-delta';
  format: typeof NODE_BUNDLE_DELTA_FORMAT;
  agentId: string;
  base: { revision: number; contentHash: string };
  revision: number;
  contentHash: string;
  generatedAt: string;
  /** Passed through untouched (a signature over the target, when the control plane signs). */
  signature?: unknown;
  patch: DeltaPatch;
}

/** The base revision and hash a `bundle-delta-base` value names, or undefined when it is not a bundle ETag. */
export function parseBundleEtag(value: string): { revision: number; contentHash: string } | undefined {
  if (value.length > 100) return undefined;
  const m = BUNDLE_ETAG.exec(value.trim());
  if (!m) return undefined;
  const revision = Number(m[1]);
  return revision <= 2_147_483_647 ? { revision, contentHash: m[2] } : undefined;
}

const KEY_FIELDS = ['id', 'capabilityId', 'key'] as const;
/** Document members that travel outside the patch. */
const ENVELOPE = new Set(['contentHash', 'generatedAt', 'signature']);

type Json = unknown;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function equal(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equal(a[i], b[i])) return false;
    return true;
  }
  if (!isObject(a) || !isObject(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (!Object.hasOwn(b, k) || !equal(a[k], b[k])) return false;
  return true;
}

/** The field naming every element of both arrays uniquely, if any. */
function keyField(a: unknown[], b: unknown[]): string | undefined {
  for (const field of KEY_FIELDS) {
    const unique = (xs: unknown[]) => {
      const seen = new Set<string>();
      for (const x of xs) {
        if (!isObject(x) || typeof x[field] !== 'string' || seen.has(x[field])) return false;
        seen.add(x[field]);
      }
      return true;
    };
    if (unique(a) && unique(b)) return field;
  }
  return undefined;
}

/** The patch turning `base` into `target`, or undefined when they are equal. */
function diff(base: Json, target: Json): DeltaPatch | undefined {
  if (base === target) return undefined;
  if (Array.isArray(base) && Array.isArray(target)) {
    const by = base.length + target.length > 0 ? keyField(base, target) : undefined;
    if (by === undefined) return equal(base, target) ? undefined : { set: target };
    return diffKeyed(base as Record<string, unknown>[], target as Record<string, unknown>[], by);
  }
  if (isObject(base) && isObject(target)) {
    const fields: Record<string, DeltaPatch> = {};
    let changed = false;
    for (const k of Object.keys(target)) {
      const p = Object.hasOwn(base, k) ? diff(base[k], target[k]) : { set: target[k] };
      if (p) {
        fields[k] = p;
        changed = true;
      }
    }
    const drop = Object.keys(base).filter((k) => !Object.hasOwn(target, k));
    if (!changed && drop.length === 0) return undefined;
    return drop.length > 0 ? { fields, drop } : { fields };
  }
  if (typeof base === 'string' && typeof target === 'string' && target.length >= SPLICE_MIN) return splice(base, target);
  return equal(base, target) ? undefined : { set: target };
}

/** Strings at least this long are spliced rather than replaced. */
const SPLICE_MIN = 256;
const ANCHOR = 64;
const MAX_HUNKS = 64;

type Hunk = [start: number, removed: number, text: string];

/** Where anchors are tried, as fractions of the target's changed range (middle first). */
const ANCHOR_AT = [0.5, 0.25, 0.75, 0.125, 0.375, 0.625, 0.875, 0.0625, 0.9375];

function occursIn(text: string, piece: string, from: number, end: number): boolean {
  const at = text.indexOf(piece, from);
  return at !== -1 && at + piece.length <= end;
}

function splice(base: string, target: string): DeltaPatch {
  const hunks: Hunk[] = [];
  hunksOf(base, 0, base.length, target, 0, target.length, hunks, 0);
  const size = hunks.reduce((n, h) => n + h[2].length + 24, 0);
  // Mostly new text, or scattered changes: replacing is as small and simpler to read.
  if (hunks.length > MAX_HUNKS || size > target.length / 2) return { set: target };
  return { splice: hunks };
}

/**
 * The hunks turning base[b0, b1) into target[t0, t1): strip the common prefix and suffix, then
 * look for a 64-character piece of the target's middle in the base's middle; where found, the
 * two sides of it are diffed the same way (a changed skill and the card's version hash become two
 * small hunks instead of one that spans every skill between them).
 */
function hunksOf(base: string, b0: number, b1: number, target: string, t0: number, t1: number, out: Hunk[], depth: number): void {
  while (b0 < b1 && t0 < t1 && base.charCodeAt(b0) === target.charCodeAt(t0)) {
    b0++;
    t0++;
  }
  while (b1 > b0 && t1 > t0 && base.charCodeAt(b1 - 1) === target.charCodeAt(t1 - 1)) {
    b1--;
    t1--;
  }
  if (b0 === b1 && t0 === t1) return;
  if (depth < 12 && out.length < MAX_HUNKS && b1 - b0 > 2 * ANCHOR && t1 - t0 > 2 * ANCHOR) {
    for (const at of ANCHOR_AT) {
      const ta = t0 + Math.floor((t1 - t0 - ANCHOR) * at);
      const piece = target.slice(ta, ta + ANCHOR);
      const ba = base.indexOf(piece, b0);
      // Only a piece found once in the base's range anchors: in repetitive text (a thousand skills
      // alike but for their number) the first occurrence can be another skill's, and splitting
      // there pairs unrelated halves whose diff is most of the card.
      if (ba !== -1 && ba + ANCHOR <= b1 && !occursIn(base, piece, ba + 1, b1)) {
        hunksOf(base, b0, ba, target, t0, ta, out, depth + 1);
        hunksOf(base, ba + ANCHOR, b1, target, ta + ANCHOR, t1, out, depth + 1);
        return;
      }
    }
  }
  out.push([b0, b1 - b0, target.slice(t0, t1)]);
}

function diffKeyed(base: Record<string, unknown>[], target: Record<string, unknown>[], by: string): DeltaPatch | undefined {
  const name = (x: Record<string, unknown>) => x[by] as string;
  const inTarget = new Map(target.map((x) => [name(x), x] as const));
  const inBase = new Map(base.map((x) => [name(x), x] as const));
  const kept = base.filter((x) => inTarget.has(name(x))).map(name);
  const keptInTarget = target.filter((x) => inBase.has(name(x))).map(name);
  // Survivors moved relative to each other: not expressible as drop/change/add; replace the array.
  if (kept.some((k, i) => k !== keptInTarget[i])) return { set: target };
  const drop = base.filter((x) => !inTarget.has(name(x))).map(name);
  const change: [string, DeltaPatch][] = [];
  for (const k of kept) {
    const p = diff(inBase.get(k), inTarget.get(k));
    if (p) change.push([k, p]);
  }
  const add: [number, unknown][] = [];
  target.forEach((x, i) => {
    if (!inBase.has(name(x))) add.push([i, x]);
  });
  if (drop.length + change.length + add.length === 0) return undefined;
  const patch: { by: string; drop?: string[]; change?: [string, DeltaPatch][]; add?: [number, unknown][] } = { by };
  if (drop.length) patch.drop = drop;
  if (change.length) patch.change = change;
  if (add.length) patch.add = add;
  return patch;
}

const content = (bundle: NodeBundle | Record<string, unknown>) =>
  Object.fromEntries(Object.entries(bundle).filter(([k]) => !ENVELOPE.has(k)));

/** The delta from `base` to `target` (both full bundles of one agent). */
export function diffNodeBundles(base: NodeBundle, target: NodeBundle): NodeBundleDelta {
  const delta: NodeBundleDelta = {
    kind: 'node-bundle-delta',
    format: NODE_BUNDLE_DELTA_FORMAT,
    agentId: target.agentId,
    base: { revision: base.revision, contentHash: base.contentHash },
    revision: target.revision,
    contentHash: target.contentHash,
    generatedAt: target.generatedAt,
    patch: diff(content(base), content(target)) ?? { fields: {} },
  };
  const signature = (target as unknown as Record<string, unknown>).signature;
  if (signature !== undefined) delta.signature = signature;
  return delta;
}

export type DeltaApplication = { ok: true; bundle: NodeBundle } | { ok: false; error: string };

class DeltaError extends Error {}

const MAX_DEPTH = 64;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Rebuilds the target bundle from `base` and a delta (JSON text or parsed), sharing the unchanged
 * parts of `base` (which is not modified). Refuses a delta for another agent or another base, one
 * that does not apply, and a result whose content hash is not the delta's contentHash. The result
 * still has to pass checkNodeBundle like any full bundle. Never throws.
 */
export function applyNodeBundleDelta(base: NodeBundle, value: unknown): DeltaApplication {
  let delta: unknown = value;
  if (typeof value === 'string') {
    try {
      delta = JSON.parse(value);
    } catch (error) {
      return { ok: false, error: `delta: not JSON: ${(error as Error).message}` };
    }
  }
  const envelope = envelopeError(delta);
  if (envelope) return { ok: false, error: `delta: ${envelope}` };
  const d = delta as NodeBundleDelta;
  if (d.agentId !== base.agentId) return { ok: false, error: `delta: for agent "${d.agentId}", this bundle is "${base.agentId}"` };
  if (d.base.revision !== base.revision || d.base.contentHash !== base.contentHash) {
    return {
      ok: false,
      error: `delta: made from revision ${d.base.revision}, this node serves revision ${base.revision} (another content)`,
    };
  }
  let rebuilt: unknown;
  try {
    rebuilt = apply(content(base), d.patch, '$', 0);
  } catch (error) {
    if (error instanceof DeltaError) return { ok: false, error: `delta: ${error.message}` };
    return { ok: false, error: `delta: does not apply: ${(error as Error).message}` };
  }
  if (!isObject(rebuilt)) return { ok: false, error: 'delta: the result is not an object' };
  const result = { ...rebuilt, generatedAt: d.generatedAt, contentHash: d.contentHash } as Record<string, unknown>;
  if (d.signature !== undefined) result.signature = d.signature;
  // Sealed (deep-frozen; the parts shared with base already are): its content hash, computed
  // here once, is the one checkNodeBundle, the signature check and the node reuse (ADR 0194).
  const bundle = sealNodeBundle(result) as unknown as NodeBundle;
  let hash: string;
  try {
    // The same delta text on the same base content (its hash as computed) gives the same content:
    // hashed once per process (ADR 0345).
    hash =
      typeof value === 'string'
        ? derivedNodeBundleContentHash(
            bundle,
            `${nodeBundleContentHash(base)}\n${createHash('sha256').update(value, 'utf8').digest('base64url')}`,
          )
        : nodeBundleContentHash(bundle);
  } catch (error) {
    return { ok: false, error: `delta: the result cannot be hashed: ${(error as Error).message}` };
  }
  if (hash !== d.contentHash) return { ok: false, error: `delta: the result hashes to ${hash}, the target is ${d.contentHash}` };
  return { ok: true, bundle };
}

const HASH = /^[0-9a-f]{64}$/;
const isRevision = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0;

function envelopeError(d: unknown): string | null {
  if (!isObject(d)) return 'expected a JSON object';
  if (d.kind !== 'node-bundle-delta') return `kind: expected "node-bundle-delta", got ${JSON.stringify(d.kind)?.slice(0, 40)}`;
  if (d.format !== NODE_BUNDLE_DELTA_FORMAT) return `format: expected ${NODE_BUNDLE_DELTA_FORMAT}`;
  if (typeof d.agentId !== 'string') return 'agentId: expected a string';
  if (!isObject(d.base) || !isRevision(d.base.revision) || typeof d.base.contentHash !== 'string' || !HASH.test(d.base.contentHash))
    return 'base: expected {revision, contentHash}';
  if (!isRevision(d.revision)) return 'revision: expected a non-negative integer';
  if (typeof d.contentHash !== 'string' || !HASH.test(d.contentHash)) return 'contentHash: expected 64 hex digits';
  if (typeof d.generatedAt !== 'string') return 'generatedAt: expected a string';
  if (!isObject(d.patch)) return 'patch: expected an object';
  return null;
}

function apply(base: unknown, patch: unknown, path: string, depth: number): unknown {
  if (depth > MAX_DEPTH) throw new DeltaError(`${path}: nested deeper than ${MAX_DEPTH}`);
  if (!isObject(patch)) throw new DeltaError(`${path}: a patch must be an object`);
  if (Object.hasOwn(patch, 'set')) return patch.set;
  if (Object.hasOwn(patch, 'splice')) return applySplice(base, patch.splice, path);
  if (Object.hasOwn(patch, 'fields')) {
    if (!isObject(base)) throw new DeltaError(`${path}: member patch on a value that is not an object`);
    const fields = patch.fields;
    const drop = patch.drop ?? [];
    if (!isObject(fields) || !Array.isArray(drop)) throw new DeltaError(`${path}: fields must be an object, drop an array`);
    const entries = new Map(Object.entries(base));
    for (const k of drop) {
      if (typeof k !== 'string' || !entries.has(k)) throw new DeltaError(`${path}: drop names ${JSON.stringify(k)}, which is not there`);
      entries.delete(k);
    }
    for (const [k, p] of Object.entries(fields)) {
      if (FORBIDDEN_KEYS.has(k)) throw new DeltaError(`${path}: member name "${k}" refused`);
      entries.set(k, apply(entries.get(k), p, `${path}.${k}`, depth + 1));
    }
    return Object.fromEntries(entries);
  }
  if (typeof patch.by === 'string') return applyKeyed(base, patch, patch.by, path, depth);
  throw new DeltaError(`${path}: a patch needs set, fields or by`);
}

function applyKeyed(base: unknown, patch: Record<string, unknown>, by: string, path: string, depth: number): unknown[] {
  if (!Array.isArray(base)) throw new DeltaError(`${path}: keyed patch on a value that is not an array`);
  const { drop = [], change = [], add = [] } = patch as { drop?: unknown; change?: unknown; add?: unknown };
  if (!Array.isArray(drop) || !Array.isArray(change) || !Array.isArray(add))
    throw new DeltaError(`${path}: drop, change, add must be arrays`);
  const index = new Map<string, number>();
  base.forEach((x, i) => {
    if (isObject(x) && typeof x[by] === 'string') index.set(x[by], i);
  });
  const out: unknown[] = [...(base as unknown[])];
  for (const k of drop) {
    const i = typeof k === 'string' ? index.get(k) : undefined;
    if (i === undefined || out[i] === REMOVED)
      throw new DeltaError(`${path}: drop names ${JSON.stringify(k)?.slice(0, 80)}, which is not there`);
    out[i] = REMOVED;
  }
  for (const c of change) {
    const i = Array.isArray(c) && typeof c[0] === 'string' ? index.get(c[0]) : undefined;
    if (i === undefined || out[i] === REMOVED) throw new DeltaError(`${path}: change names an element that is not there`);
    out[i] = apply(out[i], (c as unknown[])[1], `${path}[${by}=${(c as string[])[0]}]`, depth + 1);
  }
  const result = out.filter((x) => x !== REMOVED);
  let last = -1;
  for (const a of add) {
    if (!Array.isArray(a) || !Number.isInteger(a[0]) || (a[0] as number) <= last || (a[0] as number) > result.length) {
      throw new DeltaError(`${path}: add needs [index, element] pairs in increasing index order within the array`);
    }
    last = a[0] as number;
    result.splice(last, 0, a[1]);
  }
  return result;
}

const REMOVED = Symbol('removed');

function applySplice(base: unknown, hunks: unknown, path: string): string {
  if (typeof base !== 'string') throw new DeltaError(`${path}: splice on a value that is not a string`);
  if (!Array.isArray(hunks)) throw new DeltaError(`${path}: splice must be a list of [start, removed, text]`);
  const pieces: string[] = [];
  let at = 0;
  for (const h of hunks) {
    const ok = Array.isArray(h) && h.length === 3 && Number.isInteger(h[0]) && Number.isInteger(h[1]) && typeof h[2] === 'string';
    const [start, removed] = ok ? (h as [number, number, string]) : [-1, -1];
    if (!ok || start < at || removed < 0 || start + removed > base.length) {
      throw new DeltaError(`${path}: splice hunks must be [start, removed, text], ascending, within the string (length ${base.length})`);
    }
    pieces.push(base.slice(at, start), (h as [number, number, string])[2]);
    at = start + removed;
  }
  pieces.push(base.slice(at));
  return pieces.join('');
}

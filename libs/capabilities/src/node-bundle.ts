/**
 * The node bundle: everything an agent node needs to serve one revision of one agent without
 * asking the control plane again. Built once per (agent, revision) by the control plane, checked
 * by the node before it swaps it in.
 *
 * Holding the snapshot too lets a node compute a class past the cap lazily (with the same pure
 * functions) and re-check that every precomputed projection is what the snapshot gives.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';
import { serializeCard } from './card-version';
import { buildExtendedCard, buildPublicCard } from './cards';
import { ANONYMOUS_CLASS, EntitlementClassIndex } from './entitlement-classes';
import { buildExecutionPolicy, type ExecutionPolicy } from './execution-policy';
import { buildRouterIndex, type RouterIndex } from './router-index';
import type { AgentExtension, Caller, ProtocolSettings, RegistrySnapshot } from './types';

/** Exact bytes a node serves + their strong ETag (serializeCard's). */
export interface SerializedProjection {
  body: string;
  etag: string;
}

export interface NodeBundleClass {
  /** The entitlement class key (EntitlementClassIndex.key). */
  key: string;
  extendedCard: SerializedProjection;
  routerIndex: RouterIndex;
}

/**
 * What an agent node's AI Catalog is made of besides the snapshot (ADR 0315): the control plane's
 * host and publisher, and the entries' updatedAt, fixed when the bundle is built so the node's
 * catalog is a pure function of the bundle and the control plane can compute (and sign) exactly
 * the document the node serves. `signature` is the anonymous catalog's detached JWS.
 */
export interface NodeBundleCatalog {
  host: { displayName: string; identifier?: string; documentationUrl?: string };
  publisher: { identifier: string; displayName: string };
  /** ISO 8601: the entries' updatedAt (when this bundle was built). */
  updatedAt: string;
  /** The anonymous catalog's `metadata.signature` (ADR 0250); absent on a bundle nobody signed yet. */
  signature?: string;
}

export interface NodeBundle {
  format: 1;
  agentId: string;
  revision: number;
  generatedAt: string;
  snapshot: RegistrySnapshot;
  publicCard: SerializedProjection;
  anonymousRouterIndex: RouterIndex;
  /** Every authenticated entitlement class up to classLimit (anonymous is publicCard + anonymousRouterIndex). */
  classes: NodeBundleClass[];
  /** False when enumeration stopped at classLimit: other classes are computed lazily by the node. */
  classesComplete: boolean;
  classLimit: number;
  /** buildExecutionPolicy(snapshot) without a caller: the node enforces per call with entitlement(). */
  executionPolicy: ExecutionPolicy;
  extensions: AgentExtension[];
  protocol: ProtocolSettings;
  /** The node catalog's host, publisher and anonymous signature (ADR 0315); absent on bundles built without one. */
  catalog?: NodeBundleCatalog;
  /** sha256 hex of canonicalJson(bundle without contentHash, generatedAt and signature). */
  contentHash: string;
  /**
   * The control plane's compact JWS over {agentId, revision, epoch, contentHash} (ADR 0130);
   * left out of contentHash. Absent on a bundle the core built and nobody signed yet.
   */
  signature?: string;
}

export const NODE_BUNDLE_FORMAT = 1;
export const DEFAULT_BUNDLE_CLASS_LIMIT = 256;
/** How many classes checkNodeBundle recomputes by default (spread over the list); the rest are hash-checked only. */
export const DEFAULT_CHECK_CLASS_SAMPLE = 64;

export function bundleContentHash(
  bundle: Omit<NodeBundle, 'contentHash' | 'generatedAt'> & Partial<Pick<NodeBundle, 'contentHash' | 'generatedAt'>>,
): string {
  const { contentHash: _h, generatedAt: _g, signature: _s, ...content } = bundle;
  return contentHashOf(canonicalJson(content));
}

/** The content hash of a bundle's content already written as canonical JSON (without contentHash, generatedAt, signature). */
function contentHashOf(canonical: string): string {
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

/**
 * Bundles sealed by sealNodeBundle (deep-frozen), with their content hash once computed (null
 * before). Only a sealed bundle's hash is remembered: it cannot change after it was computed.
 */
const sealed = new WeakMap<object, string | null>();

/**
 * Deep-freezes a bundle a node is about to check and serve, so its content can no longer change
 * (ADR 0194): its content hash is then computed once, by nodeBundleContentHash, for the delta's
 * result check, checkNodeBundle, the signature check and the served hash alike. Parts already
 * frozen (shared with the bundle a delta was applied to) are not walked again. Returns `bundle`.
 */
export function sealNodeBundle<T>(bundle: T): T {
  if (typeof bundle !== 'object' || bundle === null) return bundle;
  deepFreeze(bundle);
  if (!sealed.has(bundle)) sealed.set(bundle, null);
  return bundle;
}

/** bundleContentHash, computed once per sealed bundle (every time for any other object). */
export function nodeBundleContentHash(bundle: NodeBundle): string {
  const known = sealed.get(bundle);
  if (known) return known;
  const hash = bundleContentHash(bundle);
  if (known === null) sealed.set(bundle, hash);
  return hash;
}

/**
 * nodeBundleContentHash of a sealed bundle that is fully determined by `derivation` (ADR 0345): the
 * content hash of the base it was rebuilt from, as computed, and a digest of the delta text applied
 * to it. The hash is computed the first time a derivation is seen in this process and reused for
 * the same derivation after that (a fleet's nodes in one process rebuild the same revision from
 * the same base and delta). Only for bundles sealed by sealNodeBundle; others are hashed each time.
 */
export function derivedNodeBundleContentHash(bundle: NodeBundle, derivation: string): string {
  const known = derivedHashes.get(derivation);
  if (known === undefined || sealed.get(bundle) !== null) {
    const hash = nodeBundleContentHash(bundle);
    derivedHashes.delete(derivation);
    derivedHashes.set(derivation, hash);
    if (derivedHashes.size > MAX_DERIVED) derivedHashes.delete(derivedHashes.keys().next().value!);
    return hash;
  }
  sealed.set(bundle, known);
  return known;
}

const derivedHashes = new Map<string, string>();
const MAX_DERIVED = 256;

function deepFreeze(value: object): void {
  if (Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Object.values(value)) if (typeof v === 'object' && v !== null) deepFreeze(v as object);
}

/** A caller that falls in the class named by this key (the key holds tenant, scopes, preview). */
export function representativeCaller(index: EntitlementClassIndex, key: string): Caller {
  if (key === ANONYMOUS_CLASS) return null;
  const parsed = JSON.parse(key) as { tenant: string; scopes: string[] };
  let tenant = parsed.tenant;
  if (tenant === '*') {
    tenant = 'other-tenant';
    for (let i = 2; index.relevantTenants.has(tenant); i++) tenant = `other-tenant-${i}`;
  }
  return { principal: `representative:${tenant}`, tenant, scopes: [...parsed.scopes] };
}

/** What a bundle is made of before it is finished: no generatedAt, no contentHash, no signature yet. */
export type NodeBundleContent = Omit<NodeBundle, 'contentHash' | 'generatedAt' | 'signature'>;

export interface NodeBundleOptions {
  classLimit?: number;
  now?: Date;
  catalog?: Pick<NodeBundleCatalog, 'host' | 'publisher'>;
}

export function buildNodeBundle(snapshot: RegistrySnapshot, options: NodeBundleOptions = {}): NodeBundle {
  const now = options.now ?? new Date();
  return finishNodeBundle(nodeBundleContent(snapshot, { ...options, now }), now).bundle;
}

/**
 * The bundle's content, computed from `snapshot` (sharing references with it, possibly holding
 * undefined members): what buildNodeBundle finishes, and what a signer signs the cards of before
 * finishing it once (ADR 0390).
 */
export function nodeBundleContent(snapshot: RegistrySnapshot, options: NodeBundleOptions & { now: Date }): NodeBundleContent {
  const classLimit = options.classLimit ?? DEFAULT_BUNDLE_CLASS_LIMIT;
  const index = new EntitlementClassIndex(snapshot);
  // +1: the enumeration counts the anonymous class, which the bundle carries separately.
  const enumerated = index.enumerate(classLimit + 1);
  const classes: NodeBundleClass[] = enumerated
    .filter((c) => c.caller !== null)
    .map((c) => ({
      key: c.key,
      extendedCard: serializeCard(buildExtendedCard(snapshot, c.caller)),
      routerIndex: buildRouterIndex(snapshot, c.caller),
    }));
  return {
    format: NODE_BUNDLE_FORMAT,
    agentId: snapshot.agentId,
    revision: snapshot.revision,
    snapshot,
    publicCard: serializeCard(buildPublicCard(snapshot)),
    anonymousRouterIndex: buildRouterIndex(snapshot, null),
    classes,
    classesComplete: !enumerated.truncated,
    classLimit,
    executionPolicy: buildExecutionPolicy(snapshot),
    extensions: snapshot.agent.extensions,
    protocol: snapshot.agent.protocol,
    ...(options.catalog
      ? { catalog: { host: options.catalog.host, publisher: options.catalog.publisher, updatedAt: options.now.toISOString() } }
      : {}),
  };
}

/**
 * The bundle of `content` (a signature it carries, e.g. the catalog's, included), with its
 * generatedAt and contentHash, and `canonical`: the content as canonical JSON, the text its hash
 * is taken over. Written once: the bundle is parsed from that text (so it is exactly what a node
 * receives: no undefined members, no references shared with the caller's snapshot), and the same
 * text is hashed (parsing canonical JSON and writing it anew gives the same text).
 */
export function finishNodeBundle(content: NodeBundleContent, now: Date): { bundle: NodeBundle; canonical: string } {
  const canonical = canonicalJson(content);
  const plain = JSON.parse(canonical) as NodeBundleContent;
  return { bundle: { ...plain, generatedAt: now.toISOString(), contentHash: contentHashOf(canonical) }, canonical };
}

export type NodeBundleCheck = { ok: true; bundle: NodeBundle } | { ok: false; error: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isRevision = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isProjection = (v: unknown): v is SerializedProjection => isObject(v) && typeof v.body === 'string' && typeof v.etag === 'string';
const sameJson = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);
const fail = (error: string): NodeBundleCheck => ({ ok: false, error });

function shapeError(b: Record<string, unknown>): string | null {
  if (b.format !== NODE_BUNDLE_FORMAT) return `format: expected ${NODE_BUNDLE_FORMAT}, got ${JSON.stringify(b.format)}`;
  if (typeof b.agentId !== 'string' || b.agentId === '') return 'agentId: expected a non-empty string';
  if (!isRevision(b.revision)) return 'revision: expected a non-negative integer';
  if (typeof b.generatedAt !== 'string') return 'generatedAt: expected an ISO date string';
  if (typeof b.contentHash !== 'string' || !/^[0-9a-f]{64}$/.test(b.contentHash)) return 'contentHash: expected 64 hex digits';
  if (b.signature !== undefined && typeof b.signature !== 'string') return 'signature: expected a compact JWS string';
  const s = b.snapshot;
  if (!isObject(s)) return 'snapshot: expected an object';
  if (s.agentId !== b.agentId) return `snapshot.agentId: ${JSON.stringify(s.agentId)} differs from agentId ${JSON.stringify(b.agentId)}`;
  if (s.revision !== b.revision) return `snapshot.revision: ${JSON.stringify(s.revision)} differs from revision ${b.revision}`;
  if (!isObject(s.agent)) return 'snapshot.agent: expected an object';
  if (!Array.isArray(s.manifests) || !s.manifests.every(isObject)) return 'snapshot.manifests: expected an array of objects';
  if (!Array.isArray(s.previewTenants) || !s.previewTenants.every((t) => typeof t === 'string'))
    return 'snapshot.previewTenants: expected an array of strings';
  if (!isProjection(b.publicCard)) return 'publicCard: expected {body, etag}';
  if (!isObject(b.anonymousRouterIndex)) return 'anonymousRouterIndex: expected an object';
  if (!Array.isArray(b.classes)) return 'classes: expected an array';
  for (const [i, c] of b.classes.entries()) {
    if (!isObject(c) || typeof c.key !== 'string' || !isProjection(c.extendedCard) || !isObject(c.routerIndex)) {
      return `classes[${i}]: expected {key, extendedCard: {body, etag}, routerIndex}`;
    }
  }
  if (typeof b.classesComplete !== 'boolean') return 'classesComplete: expected a boolean';
  if (!isRevision(b.classLimit)) return 'classLimit: expected a non-negative integer';
  if (!isObject(b.executionPolicy)) return 'executionPolicy: expected an object';
  if (!Array.isArray(b.extensions)) return 'extensions: expected an array';
  if (!isObject(b.protocol)) return 'protocol: expected an object';
  if (b.catalog !== undefined) return catalogShapeError(b.catalog);
  return null;
}

function catalogShapeError(c: unknown): string | null {
  const text = (v: unknown) => typeof v === 'string' && v !== '';
  if (!isObject(c)) return 'catalog: expected an object';
  if (!isObject(c.host) || !text(c.host.displayName)) return 'catalog.host: expected {displayName}';
  if (!isObject(c.publisher) || !text(c.publisher.identifier) || !text(c.publisher.displayName))
    return 'catalog.publisher: expected {identifier, displayName}';
  if (!text(c.updatedAt)) return 'catalog.updatedAt: expected an ISO date string';
  if (c.signature !== undefined && !text(c.signature)) return 'catalog.signature: expected a detached compact JWS string';
  return null;
}

/** Indexes of `count` classes spread evenly over `total` (all of them when count >= total). */
function sample(total: number, count: number): number[] {
  if (count >= total) return [...Array(total).keys()];
  const out = new Set<number>();
  for (let i = 0; i < count; i++) out.add(Math.floor((i * total) / count));
  return [...out];
}

/**
 * Checks a bundle before a node applies it: shape, content hash, every projection consistent with
 * the snapshot (the public card byte for byte; classes: every ETag matches its bytes, and a
 * sample of `classSample` classes, default 64, is recomputed), and revision not older than
 * `current` within the same registry epoch (a recreated registry starts again from revision 1).
 * `value` may be the JSON text or the parsed object. Never throws.
 */
export function checkNodeBundle(
  value: unknown,
  current?: { revision: number; epoch?: string },
  options: { classSample?: number } = {},
): NodeBundleCheck {
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      // Parsed here, so nothing else holds it: sealed, its content hash is computed once (ADR 0194).
      parsed = sealNodeBundle(JSON.parse(value) as unknown);
    } catch (error) {
      return fail(`not JSON: ${(error as Error).message}`);
    }
  }
  if (!isObject(parsed)) return fail('expected a JSON object');
  const shape = shapeError(parsed);
  if (shape) return fail(shape);
  const bundle = parsed as unknown as NodeBundle;
  if (current && bundle.revision < current.revision && bundle.snapshot.epoch === current.epoch) {
    return fail(`revision ${bundle.revision} is older than the applied revision ${current.revision}`);
  }
  try {
    const hash = nodeBundleContentHash(bundle);
    if (hash !== bundle.contentHash) return fail(`contentHash mismatch: content hashes to ${hash}, bundle says ${bundle.contentHash}`);
    // The projections are a function of the content, which the hash just recomputed names: content
    // this process found consistent before is not rebuilt again (ADR 0345).
    const consistentKey = `${hash}:${options.classSample ?? DEFAULT_CHECK_CLASS_SAMPLE}`;
    if (consistentContent.has(consistentKey)) return { ok: true, bundle };
    const snapshot = bundle.snapshot;
    // Cards are compared without their signatures (which verifyNodeBundle checks, with the keys).
    const pub = serializeCard(buildPublicCard(snapshot));
    if (unsignedBody(bundle.publicCard.body) !== pub.body) return fail('publicCard: bytes differ from the public card of the snapshot');
    if (serializeCardEtag(bundle.publicCard.body) !== bundle.publicCard.etag) return fail('publicCard: etag does not match its bytes');
    if (!sameJson(bundle.anonymousRouterIndex, buildRouterIndex(snapshot, null)))
      return fail('anonymousRouterIndex: differs from the snapshot');
    if (!sameJson(bundle.executionPolicy, buildExecutionPolicy(snapshot))) return fail('executionPolicy: differs from the snapshot');
    if (!sameJson(bundle.extensions, snapshot.agent.extensions)) return fail('extensions: differ from snapshot.agent.extensions');
    if (!sameJson(bundle.protocol, snapshot.agent.protocol)) return fail('protocol: differs from snapshot.agent.protocol');
    const index = new EntitlementClassIndex(snapshot);
    const keys = new Set<string>();
    for (const c of bundle.classes) {
      if (keys.has(c.key)) return fail(`classes: duplicate class key ${c.key}`);
      keys.add(c.key);
      if (serializeCardEtag(c.extendedCard.body) !== c.extendedCard.etag)
        return fail(`classes[${c.key}].extendedCard: etag does not match its bytes`);
    }
    for (const i of sample(bundle.classes.length, options.classSample ?? DEFAULT_CHECK_CLASS_SAMPLE)) {
      const c = bundle.classes[i];
      let caller: Caller;
      try {
        caller = representativeCaller(index, c.key);
      } catch {
        return fail(`classes[${i}].key: not an entitlement class key`);
      }
      if (caller === null || index.key(caller) !== c.key) return fail(`classes[${i}].key: not an entitlement class of this snapshot`);
      if (serializeCard(buildExtendedCard(snapshot, caller)).body !== unsignedBody(c.extendedCard.body))
        return fail(`classes[${i}].extendedCard: differs from the snapshot`);
      if (!sameJson(c.routerIndex, buildRouterIndex(snapshot, caller))) return fail(`classes[${i}].routerIndex: differs from the snapshot`);
    }
    rememberConsistent(consistentKey);
  } catch (error) {
    return fail(`inconsistent bundle: ${(error as Error).message}`);
  }
  return { ok: true, bundle };
}

/**
 * Content hashes (with the class sample) whose projections this process recomputed and found
 * consistent (ADR 0345): checking a bundle is a pure function of its content, so a fleet's nodes in
 * one process, or one node re-reading the same revision, rebuild its cards once. Bounded, oldest
 * first out; a failure is never remembered.
 */
const consistentContent = new Set<string>();
const MAX_CONSISTENT = 256;

function rememberConsistent(key: string): void {
  consistentContent.delete(key);
  consistentContent.add(key);
  if (consistentContent.size > MAX_CONSISTENT) consistentContent.delete(consistentContent.values().next().value!);
}

/** The card's canonical bytes without `signatures` (what the core computes from the snapshot). */
function unsignedBody(body: string): string {
  if (!body.includes('"signatures":')) return body;
  const { signatures: _s, ...card } = JSON.parse(body) as Record<string, unknown>;
  return canonicalJson(card);
}

function serializeCardEtag(body: string): string {
  return `"${createHash('sha256').update(body, 'utf8').digest('base64url')}"`;
}

/**
 * The lazy path of card signatures (ADR 0132): extended cards of classes past the bundle's limit
 * are computed on the node, and their signatures asked of the control plane once per class and
 * revision; ActiveBundle verifies the answer with the pinned keys before serving it. The same
 * route gives the signature of a class's AI Catalog (`catalog: true`, ADR 0315).
 */
import { cardSignaturesResultSchema, nodeApiPaths, type VerificationKeys } from '@cp/node-protocol';
import type { LazyCardSigning } from '../active-bundle';
import { describeError, type NodeApi } from './node-api';
import type { NodeSyncLogger } from './node-sync-types';

export interface CardSigningOptions {
  /** How long a request waits for the signatures (default 1000 ms; 0: never ask, serve unsigned). */
  waitMs?: number;
  retryAfterMs?: number;
  keys: VerificationKeys;
}

/** What a bundle's lazily computed classes are signed with; undefined when the node never asks. */
export function lazyCardSigning(api: NodeApi, options: CardSigningOptions, log: NodeSyncLogger): LazyCardSigning | undefined {
  const waitMs = options.waitMs ?? 1000;
  if (waitMs <= 0) return undefined;
  return {
    keys: options.keys,
    waitMs,
    retryAfterMs: options.retryAfterMs,
    signatures: async (revision, classKey) => (await cardSignatures(api, revision, classKey, false)).signatures,
    catalogSignature: async (revision, classKey) => (await cardSignatures(api, revision, classKey, true)).catalogSignature ?? null,
    onFailure: (classKey, reason) => log.warn(`serving the extended card of class ${classKey.slice(0, 200)} unsigned: ${reason}`),
    onCatalogUnsigned: (classKey, reason) => log.warn(`serving the AI Catalog of class ${classKey.slice(0, 200)} unsigned: ${reason}`),
  };
}

/**
 * POST card-signatures: the signatures of one class's card at this revision, and with `catalog`
 * its catalog's too (only then: a control plane that predates ADR 0315 still answers the cards);
 * throws naming what was wrong.
 */
async function cardSignatures(
  api: NodeApi,
  revision: number,
  classKey: string,
  catalog: boolean,
): Promise<{ signatures: unknown[]; catalogSignature?: string }> {
  const path = nodeApiPaths.cardSignatures;
  const { status, text } = await api
    .postJson(path, catalog ? { revision, classKey, catalog } : { revision, classKey })
    .catch((error: unknown) => {
      throw new Error(`POST ${path} failed: ${describeError(error)}`);
    });
  if (status < 200 || status > 299) throw new Error(`POST ${path} answered ${status}: ${text.slice(0, 300)}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`POST ${path} answered something that is not JSON`);
  }
  const result = cardSignaturesResultSchema.safeParse(parsed);
  if (!result.success || result.data.revision !== revision || result.data.classKey !== classKey) {
    throw new Error(`POST ${path} answered signatures of another shape, revision or class`);
  }
  return result.data;
}

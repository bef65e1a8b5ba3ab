/**
 * Card versioning and serialization.
 *
 * version = `${agent.version}+skills.${first 12 hex of sha256(canonicalJson(skills))}`.
 * The skills hash is semver build metadata, so it changes exactly when the generated skill list
 * changes (any skill added, removed, reordered or edited) and never otherwise; caches keyed on the
 * version refresh then (seed: "bump the card's version whenever the generated skill list
 * changes"). 48 bits make an accidental collision between two releases of one agent negligible.
 * If agent.version already carries build metadata, `.skills.<hash>` is appended to it instead.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';
import type { AgentCard, AgentSkill } from './card-types';

export function skillsHash(skills: readonly AgentSkill[]): string {
  return createHash('sha256').update(canonicalJson(skills)).digest('hex').slice(0, 12);
}

export function cardVersion(agentVersion: string, skills: readonly AgentSkill[]): string {
  const sep = agentVersion.includes('+') ? '.' : '+';
  return `${agentVersion}${sep}skills.${skillsHash(skills)}`;
}

export interface SerializedCard {
  /** Canonical JSON: byte-identical for identical cards. */
  body: string;
  /** Strong ETag of the exact bytes: `"<base64url sha256 of body>"`. */
  etag: string;
}

export function serializeCard(card: AgentCard): SerializedCard {
  const body = canonicalJson(card);
  return { body, etag: `"${createHash('sha256').update(body, 'utf8').digest('base64url')}"` };
}

/** A signed card's bytes: canonical JSON of the card with its `signatures` (A2A §8.4), and their ETag. */
export function serializeCardWithSignatures(card: object, signatures: readonly object[]): SerializedCard {
  return serializeCard({ ...(card as AgentCard), signatures: [...signatures] as AgentCard['signatures'] });
}

/**
 * A2A 1.0 AgentCard conformance of what we generate (A2A-DIGEST §1): required fields present,
 * required arrays non-empty (§5.7), skills with id/name/description/tags. The A2A SDK's fromJSON
 * does not validate, hence our own check. An agent with no public skill yields a public card
 * with an empty skills list, which this reports: publishing should refuse it.
 */
import { z } from 'zod';
import type { AgentCard, AgentSkill } from './card-types';
import type { EveryField } from './every-field';
import { jsonPath } from './json-path';
import type { ValidationIssue } from './types';

const nonEmpty = z.string().min(1);
// A2A's rule for every field our cards carry: complete by type (ADR 0213), so a new skill or card
// field is a compile error here until its conformance rule is written.
const skill = z.object({
  id: nonEmpty,
  name: nonEmpty,
  description: nonEmpty,
  tags: z.array(nonEmpty).min(1),
  examples: z.array(z.string()).optional(),
  inputModes: z.array(nonEmpty).optional(),
  outputModes: z.array(nonEmpty).optional(),
} satisfies EveryField<AgentSkill, z.ZodType>);
const agentCard = z.object({
  name: nonEmpty,
  description: nonEmpty,
  version: nonEmpty,
  supportedInterfaces: z
    .array(
      z.object({ url: z.url(), protocolBinding: nonEmpty, protocolVersion: z.string().regex(/^\d+\.\d+$/), tenant: z.string().optional() }),
    )
    .min(1),
  capabilities: z.object({
    streaming: z.boolean().optional(),
    pushNotifications: z.boolean().optional(),
    extendedAgentCard: z.boolean().optional(),
    extensions: z
      .array(
        z.object({
          uri: nonEmpty,
          description: z.string().optional(),
          required: z.boolean().optional(),
          params: z.record(z.string(), z.unknown()).optional(),
        }),
      )
      .optional(),
  }),
  defaultInputModes: z.array(nonEmpty).min(1),
  defaultOutputModes: z.array(nonEmpty).min(1),
  skills: z.array(skill).min(1, 'an A2A card needs at least one skill'),
  provider: z.object({ organization: nonEmpty, url: z.url() }).optional(),
  documentationUrl: z.url().optional(),
  iconUrl: z.url().optional(),
  securitySchemes: z.record(z.string(), z.unknown()).optional(),
  securityRequirements: z.array(z.unknown()).optional(),
  // Checked by their verifier (card-signature.ts), not by shape.
  signatures: z.unknown().optional(),
} satisfies EveryField<AgentCard, z.ZodType>);

export function checkAgentCard(card: unknown): ValidationIssue[] {
  const r = agentCard.safeParse(card);
  return r.success ? [] : r.error.issues.map((i) => ({ path: jsonPath(i.path), message: i.message }));
}

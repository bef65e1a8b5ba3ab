import { Prisma, type RegistryTx } from '@cp/db';
import { CALL_OUTCOMES, LATENCY_BUCKETS } from '@cp/node-protocol';
import type { HealthIncrement } from './health-increments';

const MAX_BIGINT = '9223372036854775807';
const COLUMNS = ['calls', ...CALL_OUTCOMES] as const;
const quoted = (c: string) => Prisma.raw(`"${c}"`);
/** Saturating: a stored count never overflows bigint (which would fail this and every later read). */
const saturatingSum = (c: string) =>
  Prisma.raw(`"${c}" = LEAST("CapabilityHealthBucket"."${c}"::numeric + EXCLUDED."${c}", ${MAX_BIGINT})::bigint`);

/**
 * Adds a batch's health to its hourly buckets in ONE statement, inside the usage batch's
 * transaction (so the batch id makes it exactly-once too). The latency buckets travel as one flat
 * array, LATENCY_BUCKETS per increment, sliced back by ordinality; stored arrays add element-wise.
 */
export async function incrementHealth(tx: RegistryTx, agentId: string, health: HealthIncrement[]): Promise<void> {
  const column = (c: (typeof COLUMNS)[number]) => health.map((h) => String(c === 'calls' ? h.calls : h.outcomes[c]));
  const flat = health.flatMap((h) => h.latencyMs.map(String));
  await tx.$executeRaw`
    INSERT INTO "CapabilityHealthBucket" ("agentId", "capabilityId", "tenantId", hour, ${Prisma.join(COLUMNS.map(quoted))}, "latencyMs")
    SELECT ${agentId}, u.capability, u.tenant, u.hour::timestamp, u.calls, u.completed, u.failed, u.rejected, u.canceled, u.refused,
           u.input_required, (${flat}::bigint[])[(u.i - 1) * ${LATENCY_BUCKETS} + 1 : u.i * ${LATENCY_BUCKETS}]
      FROM unnest(${health.map((h) => h.capabilityId)}::text[], ${health.map((h) => h.tenantId)}::text[], ${health.map((h) => h.hour)}::text[],
                  ${column('calls')}::bigint[], ${column('completed')}::bigint[], ${column('failed')}::bigint[], ${column('rejected')}::bigint[],
                  ${column('canceled')}::bigint[], ${column('refused')}::bigint[], ${column('inputRequired')}::bigint[])
           WITH ORDINALITY AS u(capability, tenant, hour, calls, completed, failed, rejected, canceled, refused, input_required, i)
    ON CONFLICT ("agentId", "capabilityId", "tenantId", hour)
    DO UPDATE SET ${Prisma.join(COLUMNS.map(saturatingSum))},
                  "latencyMs" = ARRAY(SELECT LEAST(a::numeric + b, ${Prisma.raw(MAX_BIGINT)})::bigint
                                        FROM unnest("CapabilityHealthBucket"."latencyMs", EXCLUDED."latencyMs") WITH ORDINALITY AS t(a, b, n)
                                       ORDER BY n)`;
}

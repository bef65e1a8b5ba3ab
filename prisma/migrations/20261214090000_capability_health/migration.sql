-- Health per capability (issue 32, ADR 0310): per agent, capability, tenant and UTC hour, summed
-- over nodes, the calls, how the calls that ended in the hour ended, and their handler durations
-- in the fixed latency buckets of the usage wire. Written in the usage batch's transaction.
CREATE TABLE "CapabilityHealthBucket" (
    "agentId" TEXT NOT NULL,
    "capabilityId" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "hour" TIMESTAMP(3) NOT NULL,
    "calls" BIGINT NOT NULL DEFAULT 0,
    "completed" BIGINT NOT NULL DEFAULT 0,
    "failed" BIGINT NOT NULL DEFAULT 0,
    "rejected" BIGINT NOT NULL DEFAULT 0,
    "canceled" BIGINT NOT NULL DEFAULT 0,
    "refused" BIGINT NOT NULL DEFAULT 0,
    "inputRequired" BIGINT NOT NULL DEFAULT 0,
    "latencyMs" BIGINT[],

    CONSTRAINT "CapabilityHealthBucket_pkey" PRIMARY KEY ("agentId","capabilityId","tenantId","hour")
);

CREATE INDEX "CapabilityHealthBucket_agentId_hour_idx" ON "CapabilityHealthBucket"("agentId", "hour");

ALTER TABLE "CapabilityHealthBucket" ADD CONSTRAINT "CapabilityHealthBucket_agentId_capabilityId_fkey" FOREIGN KEY ("agentId", "capabilityId") REFERENCES "CapabilityManifest"("agentId", "capabilityId") ON DELETE CASCADE ON UPDATE CASCADE;

-- Not in the Prisma schema (it cannot say these): counts are never negative, buckets are whole hours.
ALTER TABLE "CapabilityHealthBucket" ADD CONSTRAINT "CapabilityHealthBucket_counts_check"
  CHECK ("calls" >= 0 AND "completed" >= 0 AND "failed" >= 0 AND "rejected" >= 0 AND "canceled" >= 0 AND "refused" >= 0 AND "inputRequired" >= 0);
ALTER TABLE "CapabilityHealthBucket" ADD CONSTRAINT "CapabilityHealthBucket_hour_check" CHECK ("hour" = date_trunc('hour', "hour"));

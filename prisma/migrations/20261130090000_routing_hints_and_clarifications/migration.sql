-- Routing-only hints of a manifest (ADR 0091): {"terms": [...], "negativeTerms": [...]}, NULL when none.
ALTER TABLE "CapabilityManifest" ADD COLUMN "routing" JSONB;

-- Clarifications callers resolved by naming a capability (ADR 0094).
CREATE TABLE "RoutingClarification" (
    "id" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "capabilityId" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "textHash" TEXT NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 1,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "firstSeenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSeenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RoutingClarification_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "RoutingClarification_agentId_tenant_capabilityId_textHash_key" ON "RoutingClarification"("agentId", "tenant", "capabilityId", "textHash");
CREATE INDEX "RoutingClarification_agentId_status_idx" ON "RoutingClarification"("agentId", "status");

ALTER TABLE "RoutingClarification" ADD CONSTRAINT "RoutingClarification_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Issue 17: one audit trail. Every audit event records the trace it happened in; tool-token
-- exchanges are audited with their delegation chain (caller principal -> agent/node -> capability
-- -> tool, with the scopes actually granted), findable by the principal they acted for.

-- AlterTable
ALTER TABLE "AuditEvent" ADD COLUMN "traceId" TEXT,
ADD COLUMN "onBehalfOf" TEXT,
ADD COLUMN "delegation" JSONB;

-- CreateIndex
CREATE INDEX "AuditEvent_traceId_idx" ON "AuditEvent"("traceId");

-- CreateIndex
CREATE INDEX "AuditEvent_onBehalfOf_at_idx" ON "AuditEvent"("onBehalfOf", "at");

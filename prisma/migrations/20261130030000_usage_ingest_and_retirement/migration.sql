-- CreateEnum
CREATE TYPE "RetirementRunStatus" AS ENUM ('queued', 'running', 'succeeded', 'failed');

-- CreateTable
CREATE TABLE "UsageBatch" (
    "id" TEXT NOT NULL,
    "nodeId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "windowStart" TIMESTAMP(3) NOT NULL,
    "windowEnd" TIMESTAMP(3) NOT NULL,
    "entries" INTEGER NOT NULL,
    "calls" BIGINT NOT NULL,
    "final" BOOLEAN NOT NULL DEFAULT false,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "UsageBatch_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "NodeUsageCoverage" (
    "nodeId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "coveredFrom" TIMESTAMP(3) NOT NULL,
    "coveredUntil" TIMESTAMP(3) NOT NULL,
    "closed" BOOLEAN NOT NULL DEFAULT false,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "NodeUsageCoverage_pkey" PRIMARY KEY ("nodeId")
);

-- CreateTable
CREATE TABLE "RetirementRun" (
    "id" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "requestedBy" TEXT,
    "status" "RetirementRunStatus" NOT NULL,
    "asOf" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "retiredCount" INTEGER NOT NULL DEFAULT 0,
    "skippedCount" INTEGER NOT NULL DEFAULT 0,
    "retired" JSONB NOT NULL DEFAULT '[]',
    "skipped" JSONB NOT NULL DEFAULT '[]',
    "errors" JSONB NOT NULL DEFAULT '[]',

    CONSTRAINT "RetirementRun_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "UsageBatch_nodeId_windowEnd_idx" ON "UsageBatch"("nodeId", "windowEnd");

-- CreateIndex
CREATE INDEX "UsageBatch_receivedAt_idx" ON "UsageBatch"("receivedAt");

-- CreateIndex
CREATE INDEX "NodeUsageCoverage_agentId_idx" ON "NodeUsageCoverage"("agentId");

-- CreateIndex
CREATE INDEX "RetirementRun_createdAt_idx" ON "RetirementRun"("createdAt");

-- AddForeignKey
ALTER TABLE "UsageBatch" ADD CONSTRAINT "UsageBatch_nodeId_fkey" FOREIGN KEY ("nodeId") REFERENCES "Node"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NodeUsageCoverage" ADD CONSTRAINT "NodeUsageCoverage_nodeId_fkey" FOREIGN KEY ("nodeId") REFERENCES "Node"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Checks the schema language cannot express (hand-written; Prisma ignores them).
ALTER TABLE "UsageBatch" ADD CONSTRAINT "UsageBatch_window_check" CHECK ("windowEnd" >= "windowStart");
ALTER TABLE "UsageBatch" ADD CONSTRAINT "UsageBatch_counts_check" CHECK ("entries" >= 0 AND "calls" >= 0);
ALTER TABLE "NodeUsageCoverage" ADD CONSTRAINT "NodeUsageCoverage_span_check" CHECK ("coveredUntil" >= "coveredFrom");

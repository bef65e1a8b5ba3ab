-- Node ids are per agent (ADR 0070): a node is (agentId, id), so another agent's node token can
-- never take, shadow or touch a node id of this agent. Usage buckets, usage batches and usage
-- coverage point at the node by (agentId, nodeId). Ids were globally unique before, so existing
-- rows satisfy the new keys as they are.

-- DropForeignKey
ALTER TABLE "UsageBucket" DROP CONSTRAINT "UsageBucket_nodeId_fkey";
ALTER TABLE "UsageBatch" DROP CONSTRAINT "UsageBatch_nodeId_fkey";
ALTER TABLE "NodeUsageCoverage" DROP CONSTRAINT "NodeUsageCoverage_nodeId_fkey";

-- DropIndex
DROP INDEX "UsageBucket_nodeId_idx";
DROP INDEX "UsageBatch_nodeId_windowEnd_idx";
DROP INDEX "NodeUsageCoverage_agentId_idx";
DROP INDEX "Node_agentId_idx";

-- AlterTable: new primary keys
ALTER TABLE "Node" DROP CONSTRAINT "Node_pkey", ADD CONSTRAINT "Node_pkey" PRIMARY KEY ("agentId", "id");
ALTER TABLE "NodeUsageCoverage" DROP CONSTRAINT "NodeUsageCoverage_pkey", ADD CONSTRAINT "NodeUsageCoverage_pkey" PRIMARY KEY ("agentId", "nodeId");

-- CreateIndex
CREATE INDEX "UsageBucket_agentId_nodeId_day_idx" ON "UsageBucket"("agentId", "nodeId", "day");
CREATE INDEX "UsageBatch_agentId_nodeId_windowEnd_idx" ON "UsageBatch"("agentId", "nodeId", "windowEnd");

-- AddForeignKey
ALTER TABLE "UsageBucket" ADD CONSTRAINT "UsageBucket_agentId_nodeId_fkey" FOREIGN KEY ("agentId", "nodeId") REFERENCES "Node"("agentId", "id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "UsageBatch" ADD CONSTRAINT "UsageBatch_agentId_nodeId_fkey" FOREIGN KEY ("agentId", "nodeId") REFERENCES "Node"("agentId", "id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "NodeUsageCoverage" ADD CONSTRAINT "NodeUsageCoverage_agentId_nodeId_fkey" FOREIGN KEY ("agentId", "nodeId") REFERENCES "Node"("agentId", "id") ON DELETE CASCADE ON UPDATE CASCADE;

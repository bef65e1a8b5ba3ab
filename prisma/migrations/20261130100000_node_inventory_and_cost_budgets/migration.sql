-- Issue 14: what each node's code can serve, and the agent's rate budgets per cost class.

-- AlterTable
ALTER TABLE "Agent" ADD COLUMN "costBudgets" JSONB;

-- CreateTable
-- Keyed by (agentId, nodeId) and tied to the agent only, so it does not depend on how "Node" is keyed.
CREATE TABLE "NodeInventory" (
    "agentId" TEXT NOT NULL,
    "nodeId" TEXT NOT NULL,
    "handlers" JSONB NOT NULL,
    "reportedAt" TIMESTAMP(3) NOT NULL,
    "stoppedAt" TIMESTAMP(3),
    "unservable" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "unservableRevision" INTEGER,

    CONSTRAINT "NodeInventory_pkey" PRIMARY KEY ("agentId","nodeId")
);

-- AddForeignKey
ALTER TABLE "NodeInventory" ADD CONSTRAINT "NodeInventory_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

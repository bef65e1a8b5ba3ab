-- Issue 32 (ADR 0300): the approval policy and the change requests that hold gated manifest
-- changes for a second admin.

-- CreateTable
CREATE TABLE "ApprovalPolicy" (
    "id" TEXT NOT NULL,
    "kinds" TEXT[],
    "updatedBy" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ApprovalPolicy_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ChangeRequest" (
    "id" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "baseRevision" INTEGER NOT NULL,
    "documents" JSONB NOT NULL,
    "allowUnserved" TEXT[],
    "kinds" TEXT[],
    "changes" JSONB NOT NULL,
    "plan" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "author" TEXT NOT NULL,
    "breakGlass" BOOLEAN NOT NULL DEFAULT false,
    "breakGlassReason" TEXT,
    "decidedBy" TEXT,
    "decisionComment" TEXT,
    "appliedRevision" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "decidedAt" TIMESTAMP(3),

    CONSTRAINT "ChangeRequest_pkey" PRIMARY KEY ("id")
);
ALTER TABLE "ChangeRequest" ADD CONSTRAINT "ChangeRequest_status_check" CHECK ("status" IN ('pending', 'applied', 'rejected', 'stale'));

-- CreateIndex
CREATE INDEX "ChangeRequest_agentId_createdAt_idx" ON "ChangeRequest"("agentId", "createdAt");

-- CreateIndex
CREATE INDEX "ChangeRequest_status_createdAt_idx" ON "ChangeRequest"("status", "createdAt");

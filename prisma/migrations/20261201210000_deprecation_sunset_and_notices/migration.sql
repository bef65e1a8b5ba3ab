-- Issue 21: the announced sunset date of a deprecated capability, tenants' notification
-- endpoints and the deprecation notices sent to them.

-- AlterTable
ALTER TABLE "CapabilityManifest" ADD COLUMN "sunsetAt" TIMESTAMP(3);
-- Only a deprecated capability announces a removal date (a removed one keeps the date it had).
ALTER TABLE "CapabilityManifest" ADD CONSTRAINT "CapabilityManifest_sunset_check" CHECK ("sunsetAt" IS NULL OR "state" IN ('deprecated', 'removed'));

-- CreateTable
CREATE TABLE "NotificationEndpoint" (
    "tenantId" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "NotificationEndpoint_pkey" PRIMARY KEY ("tenantId")
);

-- CreateTable
CREATE TABLE "DeprecationNotice" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "capabilityId" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "eventKey" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deliveredAt" TIMESTAMP(3),

    CONSTRAINT "DeprecationNotice_pkey" PRIMARY KEY ("id")
);
ALTER TABLE "DeprecationNotice" ADD CONSTRAINT "DeprecationNotice_status_check" CHECK ("status" IN ('pending', 'delivered', 'dead'));

-- CreateIndex
CREATE UNIQUE INDEX "DeprecationNotice_tenantId_agentId_capabilityId_event_eventKey_key" ON "DeprecationNotice"("tenantId", "agentId", "capabilityId", "event", "eventKey");

-- CreateIndex
CREATE INDEX "DeprecationNotice_status_createdAt_idx" ON "DeprecationNotice"("status", "createdAt");

-- AddForeignKey
ALTER TABLE "NotificationEndpoint" ADD CONSTRAINT "NotificationEndpoint_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

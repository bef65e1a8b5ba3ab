-- CreateEnum
CREATE TYPE "CapabilityState" AS ENUM ('preview', 'ga', 'deprecated', 'removed');

-- CreateEnum
CREATE TYPE "Visibility" AS ENUM ('public', 'extended', 'internal');

-- CreateTable
CREATE TABLE "Team" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Team_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Agent" (
    "id" TEXT NOT NULL,
    "teamId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "provider" JSONB,
    "documentationUrl" TEXT,
    "iconUrl" TEXT,
    "supportedInterfaces" JSONB NOT NULL,
    "securitySchemes" JSONB,
    "securityRequirements" JSONB,
    "defaultInputModes" TEXT[],
    "defaultOutputModes" TEXT[],
    "extensions" JSONB NOT NULL DEFAULT '[]',
    "streaming" BOOLEAN NOT NULL DEFAULT false,
    "pushNotifications" BOOLEAN NOT NULL DEFAULT false,
    "extendedCardEnabled" BOOLEAN NOT NULL DEFAULT true,
    "revision" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Agent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CapabilityManifest" (
    "agentId" TEXT NOT NULL,
    "capabilityId" TEXT NOT NULL,
    "state" "CapabilityState" NOT NULL,
    "visibility" "Visibility" NOT NULL,
    "skill" JSONB NOT NULL,
    "requiresScopes" TEXT[],
    "tenantsAll" BOOLEAN NOT NULL,
    "tenants" TEXT[],
    "handler" TEXT NOT NULL,
    "limits" JSONB NOT NULL DEFAULT '{}',
    "ownerTeamId" TEXT NOT NULL,
    "replacedBy" TEXT,
    "deprecationReason" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "deprecatedAt" TIMESTAMP(3),
    "removedAt" TIMESTAMP(3),

    CONSTRAINT "CapabilityManifest_pkey" PRIMARY KEY ("agentId","capabilityId")
);

-- CreateTable
CREATE TABLE "Tenant" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Tenant_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Scope" (
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Scope_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "PreviewOptIn" (
    "tenantId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PreviewOptIn_pkey" PRIMARY KEY ("tenantId","agentId")
);

-- CreateTable
CREATE TABLE "UsageBucket" (
    "agentId" TEXT NOT NULL,
    "capabilityId" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "nodeId" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "count" BIGINT NOT NULL DEFAULT 0,
    "lastCallAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "UsageBucket_pkey" PRIMARY KEY ("agentId","capabilityId","tenantId","nodeId","day")
);

-- CreateTable
CREATE TABLE "Node" (
    "id" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "hostname" TEXT,
    "registeredAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSeenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "appliedRevision" INTEGER,
    "servedHash" TEXT,
    "lastError" TEXT,
    "lastErrorAt" TIMESTAMP(3),

    CONSTRAINT "Node_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RegistryRevision" (
    "agentId" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "actor" TEXT NOT NULL,
    "summary" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "publishedAt" TIMESTAMP(3),

    CONSTRAINT "RegistryRevision_pkey" PRIMARY KEY ("agentId","revision")
);

-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "targetType" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "agentId" TEXT,
    "revision" INTEGER,
    "before" JSONB,
    "after" JSONB,

    CONSTRAINT "AuditEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Agent_teamId_idx" ON "Agent"("teamId");

-- CreateIndex
CREATE INDEX "CapabilityManifest_agentId_state_idx" ON "CapabilityManifest"("agentId", "state");

-- CreateIndex
CREATE INDEX "CapabilityManifest_ownerTeamId_idx" ON "CapabilityManifest"("ownerTeamId");

-- CreateIndex
CREATE INDEX "PreviewOptIn_agentId_idx" ON "PreviewOptIn"("agentId");

-- CreateIndex
CREATE INDEX "UsageBucket_agentId_capabilityId_day_idx" ON "UsageBucket"("agentId", "capabilityId", "day");

-- CreateIndex
CREATE INDEX "UsageBucket_nodeId_idx" ON "UsageBucket"("nodeId");

-- CreateIndex
CREATE INDEX "Node_agentId_idx" ON "Node"("agentId");

-- CreateIndex
CREATE INDEX "RegistryRevision_publishedAt_idx" ON "RegistryRevision"("publishedAt");

-- CreateIndex
CREATE INDEX "AuditEvent_agentId_at_idx" ON "AuditEvent"("agentId", "at");

-- CreateIndex
CREATE INDEX "AuditEvent_targetType_targetId_idx" ON "AuditEvent"("targetType", "targetId");

-- CreateIndex
CREATE INDEX "AuditEvent_actor_at_idx" ON "AuditEvent"("actor", "at");

-- CreateIndex
CREATE INDEX "AuditEvent_at_idx" ON "AuditEvent"("at");

-- AddForeignKey
ALTER TABLE "Agent" ADD CONSTRAINT "Agent_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CapabilityManifest" ADD CONSTRAINT "CapabilityManifest_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CapabilityManifest" ADD CONSTRAINT "CapabilityManifest_ownerTeamId_fkey" FOREIGN KEY ("ownerTeamId") REFERENCES "Team"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PreviewOptIn" ADD CONSTRAINT "PreviewOptIn_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PreviewOptIn" ADD CONSTRAINT "PreviewOptIn_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UsageBucket" ADD CONSTRAINT "UsageBucket_agentId_capabilityId_fkey" FOREIGN KEY ("agentId", "capabilityId") REFERENCES "CapabilityManifest"("agentId", "capabilityId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UsageBucket" ADD CONSTRAINT "UsageBucket_nodeId_fkey" FOREIGN KEY ("nodeId") REFERENCES "Node"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Node" ADD CONSTRAINT "Node_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RegistryRevision" ADD CONSTRAINT "RegistryRevision_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Checks the schema language cannot express (hand-written; Prisma ignores them).
ALTER TABLE "Team" ADD CONSTRAINT "Team_id_slug_check" CHECK ("id" ~ '^[a-z][a-z0-9]*(-[a-z0-9]+)*$');
ALTER TABLE "Agent" ADD CONSTRAINT "Agent_id_slug_check" CHECK ("id" ~ '^[a-z][a-z0-9]*(-[a-z0-9]+)*$');
ALTER TABLE "Agent" ADD CONSTRAINT "Agent_revision_check" CHECK ("revision" >= 0);
ALTER TABLE "Agent" ADD CONSTRAINT "Agent_supportedInterfaces_check" CHECK (jsonb_typeof("supportedInterfaces") = 'array' AND jsonb_array_length("supportedInterfaces") > 0);
ALTER TABLE "Agent" ADD CONSTRAINT "Agent_extensions_check" CHECK (jsonb_typeof("extensions") = 'array');
ALTER TABLE "Tenant" ADD CONSTRAINT "Tenant_id_slug_check" CHECK ("id" ~ '^[a-z][a-z0-9]*(-[a-z0-9]+)*$');
ALTER TABLE "CapabilityManifest" ADD CONSTRAINT "CapabilityManifest_tenants_check" CHECK (("tenantsAll" AND cardinality("tenants") = 0) OR (NOT "tenantsAll" AND cardinality("tenants") > 0));
ALTER TABLE "CapabilityManifest" ADD CONSTRAINT "CapabilityManifest_deprecated_check" CHECK ("state" <> 'deprecated' OR ("deprecatedAt" IS NOT NULL AND ("replacedBy" IS NOT NULL OR "deprecationReason" IS NOT NULL)));
ALTER TABLE "CapabilityManifest" ADD CONSTRAINT "CapabilityManifest_removed_check" CHECK ("state" <> 'removed' OR "removedAt" IS NOT NULL);
ALTER TABLE "CapabilityManifest" ADD CONSTRAINT "CapabilityManifest_skill_check" CHECK (jsonb_typeof("skill") = 'object');
ALTER TABLE "CapabilityManifest" ADD CONSTRAINT "CapabilityManifest_limits_check" CHECK (jsonb_typeof("limits") = 'object');
ALTER TABLE "UsageBucket" ADD CONSTRAINT "UsageBucket_count_check" CHECK ("count" >= 0);
ALTER TABLE "RegistryRevision" ADD CONSTRAINT "RegistryRevision_revision_check" CHECK ("revision" > 0);

-- The node as an A2A gateway (issue 28, ADR 0230): the upstream agent that serves a capability
-- (server-side only, never in a card) and the private hosts upstreams may be reached at, which
-- only platform admins widen (the same rule as webhookAllow, ADR 0211).
ALTER TABLE "CapabilityManifest" ADD COLUMN "upstream" JSONB;
ALTER TABLE "Agent" ADD COLUMN "upstreamAllow" TEXT[] DEFAULT ARRAY[]::TEXT[];

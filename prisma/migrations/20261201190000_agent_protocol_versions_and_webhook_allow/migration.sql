-- A2A versions an agent serves (ADR 0160) and the hosts its push webhooks may reach although private (ADR 0162).
ALTER TABLE "Agent" ADD COLUMN "protocolVersions" TEXT[] DEFAULT ARRAY['1.0']::TEXT[];
ALTER TABLE "Agent" ADD COLUMN "webhookAllow" TEXT[] DEFAULT ARRAY[]::TEXT[];
-- Nodes always serve 1.0; 0.3 is served beside it, never alone.
ALTER TABLE "Agent" ADD CONSTRAINT "Agent_protocolVersions_check"
  CHECK ("protocolVersions" <@ ARRAY['1.0', '0.3']::TEXT[] AND '1.0' = ANY ("protocolVersions"));

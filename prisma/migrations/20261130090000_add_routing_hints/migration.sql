-- Routing-only hints of a manifest (ADR 0091): {"terms": [...], "negativeTerms": [...]}, NULL when none.
ALTER TABLE "CapabilityManifest" ADD COLUMN "routing" JSONB;

-- The sync relay re-announces only agents that changed recently (ADR 0150): it reads the
-- revisions created within its window, which must not scan the whole outbox.
CREATE INDEX "RegistryRevision_createdAt_idx" ON "RegistryRevision"("createdAt");

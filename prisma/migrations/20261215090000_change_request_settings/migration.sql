-- Issue 32 (ADR 0325): a change request may hold a change of the agent's settings (its webhook or
-- upstream allow list widened) instead of manifest documents: the whole card base before and after.
ALTER TABLE "ChangeRequest" ADD COLUMN "settings" JSONB;

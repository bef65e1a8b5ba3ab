-- A delivery claims a pending notice until this time (UTC, wall clock) before it sends, so a
-- second delivery of the same notice meanwhile sends nothing (ADR 184).
ALTER TABLE "DeprecationNotice" ADD COLUMN "claimedUntil" TIMESTAMP(3);

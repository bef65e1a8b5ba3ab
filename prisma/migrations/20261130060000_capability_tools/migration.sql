-- Issue 11 item 7: which tools each capability's handler may obtain tool tokens for.
-- Existing capabilities get none; the seed grants reconcile-invoice the erp tool.
ALTER TABLE "CapabilityManifest" ADD COLUMN "tools" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- The worked example: reconcile-invoice calls the ERP (it always did, before the binding existed).
UPDATE "CapabilityManifest" SET "tools" = ARRAY['erp']
 WHERE "capabilityId" = 'reconcile-invoice'
   AND EXISTS (SELECT 1 FROM "Tool" t WHERE t."agentId" = "CapabilityManifest"."agentId" AND t."name" = 'erp');

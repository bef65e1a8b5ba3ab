-- Servability and drift of upstream-served capabilities (issue 28 item 6, ADR 0275): what a gateway
-- node saw when it last fetched each upstream's own card. NULL: the node is not a gateway.
ALTER TABLE "NodeInventory" ADD COLUMN "upstreams" JSONB;

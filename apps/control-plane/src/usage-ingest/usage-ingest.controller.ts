import { Body, Controller, HttpCode, Post, UseFilters, UseGuards } from '@nestjs/common';
import type { NodePrincipal } from '@cp/auth';
import { NodeApiFilter } from '../node-auth/node-api.filter';
import { CurrentNode, NodeTokenGuard } from '../node-auth/node-token.guard';
import { UsageIngestService, type IngestResult } from './usage-ingest.service';

/** Agent nodes report their call counts here, one batch per window (node JWT). */
@Controller('node/v1')
@UseFilters(NodeApiFilter)
@UseGuards(NodeTokenGuard)
export class UsageIngestController {
  constructor(private readonly usage: UsageIngestService) {}

  @Post('usage')
  @HttpCode(202)
  async report(@CurrentNode() principal: NodePrincipal, @Body() body: unknown): Promise<IngestResult> {
    return this.usage.ingest(principal, body);
  }
}

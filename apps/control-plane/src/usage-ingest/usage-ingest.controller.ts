import { Body, Controller, HttpCode, Post, UseFilters, UseGuards } from '@nestjs/common';
import type { NodePrincipal } from '@cp/auth';
import { NodeHttpErrorFilter } from '../node-auth/node-http-error';
import { CurrentNode, NodeTokenGuard } from '../node-auth/node-token.guard';
import { UsageIngestService, type IngestResult } from './usage-ingest.service';

/** Agent nodes report their call counts here, one batch per window (node JWT). */
@Controller('node/v1')
@UseFilters(NodeHttpErrorFilter)
@UseGuards(NodeTokenGuard)
export class UsageIngestController {
  constructor(private readonly usage: UsageIngestService) {}

  @Post('usage')
  @HttpCode(202)
  async report(@CurrentNode() principal: NodePrincipal, @Body() body: unknown): Promise<IngestResult> {
    return this.usage.ingest(principal, body);
  }
}

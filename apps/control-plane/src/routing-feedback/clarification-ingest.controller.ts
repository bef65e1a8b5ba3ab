import { Body, Controller, HttpCode, Post, UseFilters, UseGuards } from '@nestjs/common';
import type { NodePrincipal } from '@cp/auth';
import { NodeApiFilter } from '../node-auth/node-api.filter';
import { CurrentNode, NodeTokenGuard } from '../node-auth/node-token.guard';
import { RoutingClarificationsService, type IngestOutcome } from './routing-clarifications.service';

/** Agent nodes report resolved clarifications here (node JWT; the token names the agent). */
@Controller('node/v1')
@UseFilters(NodeApiFilter)
@UseGuards(NodeTokenGuard)
export class ClarificationIngestController {
  constructor(private readonly clarifications: RoutingClarificationsService) {}

  @Post('clarifications')
  @HttpCode(202)
  report(@CurrentNode() principal: NodePrincipal, @Body() body: unknown): Promise<IngestOutcome> {
    return this.clarifications.ingest(principal, body);
  }
}

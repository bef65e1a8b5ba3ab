import { Body, Controller, HttpCode, Post, UseFilters, UseGuards } from '@nestjs/common';
import type { NodePrincipal } from '@cp/auth';
import type { CardSignaturesResult } from '@cp/node-protocol';
import { parseAck, parseCardSignatures, parseHeartbeat, parseRegister } from './dto/node-api.inputs';
import { CardSignaturesService } from './card-signatures.service';
import { NodeApiFilter } from '../node-auth/node-api.filter';
import { NodeApiService } from './node-api.service';
import { CurrentNode, NodeTokenGuard } from '../node-auth/node-token.guard';

/** Node lifecycle: register, heartbeat, ack; signatures of lazily computed cards. (GET bundle is a bare Fastify route: node-bundle.route.ts.) */
@Controller('node/v1')
@UseGuards(NodeTokenGuard)
@UseFilters(NodeApiFilter)
export class NodeApiController {
  constructor(
    private readonly nodes: NodeApiService,
    private readonly cards: CardSignaturesService,
  ) {}

  @Post('register')
  @HttpCode(204)
  register(@CurrentNode() node: NodePrincipal, @Body() body: unknown): Promise<void> {
    return this.nodes.register(node, parseRegister(body));
  }

  @Post('heartbeat')
  @HttpCode(204)
  heartbeat(@CurrentNode() node: NodePrincipal, @Body() body: unknown): Promise<void> {
    return this.nodes.heartbeat(node, parseHeartbeat(body));
  }

  @Post('ack')
  @HttpCode(204)
  ack(@CurrentNode() node: NodePrincipal, @Body() body: unknown): Promise<void> {
    return this.nodes.ack(node, parseAck(body));
  }

  /** The signatures of one lazily computed class's extended card, for the agent of the node's token (ADR 0132). */
  @Post('card-signatures')
  @HttpCode(200)
  cardSignatures(@CurrentNode() node: NodePrincipal, @Body() body: unknown): Promise<CardSignaturesResult> {
    return this.cards.signaturesFor(node.agentId, parseCardSignatures(body));
  }
}

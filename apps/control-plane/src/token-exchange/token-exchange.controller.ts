import { Body, Controller, HttpCode, Post, UseFilters, UseGuards } from '@nestjs/common';
import type { NodePrincipal } from '@cp/auth';
import { NodeApiFilter } from '../node-auth/node-api.filter';
import { CurrentNode, NodeTokenGuard } from '../node-auth/node-token.guard';
import type { TokenExchangeResult } from '@cp/node-protocol';
import { TokenExchangeService } from './token-exchange.service';

/** Agent nodes exchange a caller's token for a downscoped tool token here (node JWT). */
@Controller('node/v1')
@UseFilters(NodeApiFilter)
@UseGuards(NodeTokenGuard)
export class TokenExchangeController {
  constructor(private readonly exchanges: TokenExchangeService) {}

  @Post('token-exchange')
  @HttpCode(200)
  async exchange(@CurrentNode() node: NodePrincipal, @Body() body: unknown): Promise<TokenExchangeResult> {
    return this.exchanges.exchange(node, body);
  }
}

import { Body, Controller, HttpCode, Post, UseFilters, UseGuards } from '@nestjs/common';
import type { NodePrincipal } from '@cp/auth';
import { NodeHttpErrorFilter } from '../node-auth/node-http-error';
import { CurrentNode, NodeTokenGuard } from '../node-auth/node-token.guard';
import type { TokenExchangeResult } from './dto/token-exchange.schema';
import { TokenExchangeService } from './token-exchange.service';

/** Agent nodes exchange a caller's token for a downscoped tool token here (node JWT). */
@Controller('node/v1')
@UseFilters(NodeHttpErrorFilter)
@UseGuards(NodeTokenGuard)
export class TokenExchangeController {
  constructor(private readonly exchanges: TokenExchangeService) {}

  @Post('token-exchange')
  @HttpCode(200)
  async exchange(@CurrentNode() node: NodePrincipal, @Body() body: unknown): Promise<TokenExchangeResult> {
    return this.exchanges.exchange(node, body);
  }
}

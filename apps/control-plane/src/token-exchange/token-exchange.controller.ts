import { Body, Controller, Headers, HttpCode, Inject, Post, UseFilters } from '@nestjs/common';
import { bearerToken, controlPlaneVerifier, type JwtVerifier } from '@cp/auth';
import { AppConfigToken, type AppConfig } from '@cp/common';
import type { TokenExchangeResult } from './dto/token-exchange.schema';
import { TokenExchangeFilter } from './token-exchange.filter';
import { TokenExchangeService } from './token-exchange.service';

/** Agent nodes exchange a caller's token for a downscoped tool token here (node JWT). */
@Controller('node/v1')
@UseFilters(TokenExchangeFilter)
export class TokenExchangeController {
  private readonly verifier: JwtVerifier;

  constructor(
    private readonly exchanges: TokenExchangeService,
    @Inject(AppConfigToken) config: AppConfig,
  ) {
    this.verifier = controlPlaneVerifier(config);
  }

  @Post('token-exchange')
  @HttpCode(200)
  async exchange(@Headers('authorization') authorization: string | undefined, @Body() body: unknown): Promise<TokenExchangeResult> {
    const node = await this.verifier.verify(bearerToken(authorization), 'node');
    return this.exchanges.exchange(node, body);
  }
}

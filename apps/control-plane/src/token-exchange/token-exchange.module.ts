import { Module } from '@nestjs/common';
import { TokenExchangeController } from './token-exchange.controller';
import { TokenExchangeService } from './token-exchange.service';
import { ToolRepository } from './tool.repository';

@Module({
  controllers: [TokenExchangeController],
  providers: [TokenExchangeService, ToolRepository],
  exports: [ToolRepository],
})
export class TokenExchangeModule {}

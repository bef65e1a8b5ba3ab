import { Module } from '@nestjs/common';
import { NodeAuthModule } from '../node-auth/node-auth.module';
import { TokenExchangeController } from './token-exchange.controller';
import { TokenExchangeService } from './token-exchange.service';
import { ToolRepository } from './tool.repository';

@Module({
  imports: [NodeAuthModule],
  controllers: [TokenExchangeController],
  providers: [TokenExchangeService, ToolRepository],
  exports: [ToolRepository],
})
export class TokenExchangeModule {}

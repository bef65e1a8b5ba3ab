import { Module } from '@nestjs/common';
import { NodeAuthModule } from '../node-auth/node-auth.module';
import { ClockModule } from '@cp/jobs';
import { UsageIngestController } from './usage-ingest.controller';
import { UsageIngestRepository } from './usage-ingest.repository';
import { UsageIngestService } from './usage-ingest.service';

@Module({
  imports: [NodeAuthModule, ClockModule],
  controllers: [UsageIngestController],
  providers: [UsageIngestService, UsageIngestRepository],
})
export class UsageIngestModule {}

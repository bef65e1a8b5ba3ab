import { Module } from '@nestjs/common';
import { ClockModule } from '@cp/jobs';
import { UsageIngestController } from './usage-ingest.controller';
import { UsageIngestRepository } from './usage-ingest.repository';
import { UsageIngestService } from './usage-ingest.service';

@Module({
  imports: [ClockModule],
  controllers: [UsageIngestController],
  providers: [UsageIngestService, UsageIngestRepository],
})
export class UsageIngestModule {}

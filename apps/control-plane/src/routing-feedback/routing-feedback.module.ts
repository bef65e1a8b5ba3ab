import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { ManifestsModule } from '../manifests/manifests.module';
import { NodeAuthModule } from '../node-auth/node-auth.module';
import { ClarificationIngestController } from './clarification-ingest.controller';
import { RoutingClarificationsRepository } from './routing-clarifications.repository';
import { RoutingClarificationsResolver } from './routing-clarifications.resolver';
import { RoutingClarificationsService } from './routing-clarifications.service';

/** Learning from clarifications (ADR 0094): node ingestion, admin review and promotion. */
@Module({
  imports: [NodeAuthModule, AgentsModule, ManifestsModule],
  controllers: [ClarificationIngestController],
  providers: [RoutingClarificationsRepository, RoutingClarificationsService, RoutingClarificationsResolver],
})
export class RoutingFeedbackModule {}

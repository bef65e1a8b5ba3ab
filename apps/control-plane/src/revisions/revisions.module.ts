import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { ManifestsModule } from '../manifests/manifests.module';
import { RevisionsRepository } from './revisions.repository';
import { RevisionsResolver } from './revisions.resolver';
import { RevisionsService } from './revisions.service';

/** An agent's revision history and its manifests as of a revision (issue 32, ADR 0307). */
@Module({
  imports: [AgentsModule, ManifestsModule],
  providers: [RevisionsRepository, RevisionsService, RevisionsResolver],
})
export class RevisionsModule {}

import { Module } from '@nestjs/common';
import { RegistryModule } from '@cp/db';
import { AgentsModule } from '../agents/agents.module';
import { ProjectionsResolver } from './projections.resolver';
import { ProjectionsService } from './projections.service';

@Module({ imports: [RegistryModule, AgentsModule], providers: [ProjectionsService, ProjectionsResolver] })
export class ProjectionsModule {}

import { Module } from '@nestjs/common';
import { AuditWriterModule } from '@cp/db';
import { TeamsRepository } from './teams.repository';
import { TeamsResolver } from './teams.resolver';
import { TeamsService } from './teams.service';

@Module({ imports: [AuditWriterModule], providers: [TeamsRepository, TeamsService, TeamsResolver] })
export class TeamsModule {}

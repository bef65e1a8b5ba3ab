import { Module } from '@nestjs/common';
import { AuditWriterModule } from '@cp/db';
import { ScopesRepository } from './scopes.repository';
import { ScopesResolver } from './scopes.resolver';
import { ScopesService } from './scopes.service';

@Module({ imports: [AuditWriterModule], providers: [ScopesRepository, ScopesService, ScopesResolver] })
export class ScopesModule {}

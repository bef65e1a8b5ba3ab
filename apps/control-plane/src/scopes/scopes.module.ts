import { Module } from '@nestjs/common';
import { RegistryModule } from '@cp/db';
import { ScopesRepository } from './scopes.repository';
import { ScopesResolver } from './scopes.resolver';
import { ScopesService } from './scopes.service';

@Module({ imports: [RegistryModule], providers: [ScopesRepository, ScopesService, ScopesResolver] })
export class ScopesModule {}

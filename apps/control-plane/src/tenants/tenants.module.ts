import { Module } from '@nestjs/common';
import { AuditWriterModule } from '@cp/db';
import { TenantsRepository } from './tenants.repository';
import { TenantsResolver } from './tenants.resolver';
import { TenantsService } from './tenants.service';

@Module({ imports: [AuditWriterModule], providers: [TenantsRepository, TenantsService, TenantsResolver] })
export class TenantsModule {}

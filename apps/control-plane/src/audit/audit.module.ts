import { Module } from '@nestjs/common';
import { AuditRepository } from './audit.repository';
import { AuditResolver } from './audit.resolver';
import { AuditService } from './audit.service';

@Module({ providers: [AuditRepository, AuditService, AuditResolver] })
export class AuditModule {}

import { Module } from '@nestjs/common';
import { ClockModule } from '@cp/common';
import { RegistryModule } from '@cp/db';
import { AgentsModule } from '../agents/agents.module';
import { ApprovalGateModule } from '../change-requests/approval-gate.module';
import { ImpactModule } from '../deprecation/impact.module';
import { NodeInventoryModule } from '../node-inventory/node-inventory.module';
import { UsageModule } from '../usage/usage.module';
import { ApplyManifestsService } from './apply-manifests.service';
import { ManifestAccess } from './manifest-access';
import { ManifestChangesService } from './manifest-changes.service';
import { ManifestWritePipeline } from './manifest-write-pipeline';
import { ManifestsRepository } from './manifests.repository';
import { ManifestsResolver } from './manifests.resolver';
import { ManifestsService } from './manifests.service';

@Module({
  imports: [ClockModule, RegistryModule, AgentsModule, NodeInventoryModule, ImpactModule, UsageModule, ApprovalGateModule],
  providers: [
    ManifestsRepository,
    ManifestAccess,
    ManifestWritePipeline,
    ManifestsService,
    ManifestChangesService,
    ApplyManifestsService,
    ManifestsResolver,
  ],
  exports: [ManifestsService, ManifestAccess, ManifestChangesService, ApplyManifestsService],
})
export class ManifestsModule {}

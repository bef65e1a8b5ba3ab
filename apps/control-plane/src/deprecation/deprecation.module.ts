import { Module } from '@nestjs/common';
import { ClockModule } from '@cp/common';
import { RetirementCoreModule } from '@cp/jobs';
import { ManifestsModule } from '../manifests/manifests.module';
import { CapabilityImpactService } from './capability-impact.service';
import { ImpactModule } from './impact.module';
import { ImpactResolver } from './impact.resolver';

/** Deprecation in the admin API (issue 21): the impact report of a capability. */
@Module({
  imports: [ClockModule, ManifestsModule, ImpactModule, RetirementCoreModule],
  providers: [CapabilityImpactService, ImpactResolver],
})
export class DeprecationModule {}

import { Module } from '@nestjs/common';
import { ClockModule } from '@cp/common';
import { ImpactRepository } from './impact.repository';
import { PlanImpactService } from './plan-impact.service';

/** Usage-aware impact of a plan (used by applyManifests); no dependency on the manifests feature. */
@Module({
  imports: [ClockModule],
  providers: [ImpactRepository, PlanImpactService],
  exports: [ImpactRepository, PlanImpactService],
})
export class ImpactModule {}

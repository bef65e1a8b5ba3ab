import { Module } from '@nestjs/common';
import { RegistryModule } from '@cp/db';
import { ManifestsModule } from '../manifests/manifests.module';
import { CostBudgetsRepository } from './cost-budgets.repository';
import { CostBudgetsResolver } from './cost-budgets.resolver';
import { CostBudgetsService } from './cost-budgets.service';

/** GraphQL: Query.costBudgets and Mutation.setCostBudgets (issue 14). */
@Module({ imports: [RegistryModule, ManifestsModule], providers: [CostBudgetsRepository, CostBudgetsService, CostBudgetsResolver] })
export class CostBudgetsModule {}

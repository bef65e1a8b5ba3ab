import { Field, ID, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import type { CostClass } from '@cp/capabilities';

export enum CostClassEnum {
  low = 'low',
  medium = 'medium',
  high = 'high',
}
registerEnumType(CostClassEnum, { name: 'CostClass', description: "A manifest's limits.cost_class." });

@InputType()
export class CostBudgetInput {
  @Field(() => CostClassEnum) costClass!: CostClass;
  @Field(() => Int, { description: 'Calls per tenant and capability in one window (1 to 1,000,000,000).' }) calls!: number;
  @Field(() => Int, { description: 'The window, in seconds (1 to 86,400).' }) windowS!: number;
}

@InputType()
export class SetCostBudgetsInput {
  @Field() agentId!: string;
  @Field(() => Int) expectedRevision!: number;
  @Field(() => [CostBudgetInput], { description: 'The whole set: a class not listed is not rate limited.' })
  budgets!: CostBudgetInput[];
}

@ObjectType('CostBudget', { description: 'A rate budget per tenant × capability for one cost class, shared by every node of the agent.' })
export class CostBudgetModel {
  @Field(() => CostClassEnum) costClass!: CostClass;
  @Field(() => Int) calls!: number;
  @Field(() => Int) windowS!: number;
}

@ObjectType('CostBudgets')
export class CostBudgetsModel {
  @Field(() => ID) agentId!: string;
  @Field(() => Int, { description: "The agent's revision (setting budgets bumps it, so nodes pick them up)." }) revision!: number;
  @Field(() => [CostBudgetModel]) budgets!: CostBudgetModel[];
}

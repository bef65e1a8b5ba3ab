import { Injectable } from '@nestjs/common';
import { planRetirement, retirementWindowStart, type RetirementPlan } from '@cp/capabilities';
import { InjectConfig, type AppConfig } from '@cp/common';
import { RetirementError, RetirementErrorCode } from './retirement.errors';
import { RetirementRepository } from './retirement.repository';
import { retirementPolicy } from './retirement-policy';

export interface AgentPlan {
  agentId: string;
  plan: RetirementPlan;
}

/** Loads the facts (set-based) and applies the pure rule: what a run would do, and why. */
@Injectable()
export class RetirementPlanner {
  constructor(
    private readonly repository: RetirementRepository,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  /** Plans for every agent with deprecated capabilities, ordered by agent id. */
  async planAll(now: Date): Promise<AgentPlan[]> {
    const policy = retirementPolicy(this.config);
    const inputs = await this.repository.loadInputs(retirementWindowStart(now, policy));
    return inputs
      .sort((a, b) => (a.agentId < b.agentId ? -1 : 1))
      .map((input) => ({ agentId: input.agentId, plan: planRetirement(input.candidates, input.nodes, now, policy) }));
  }

  async agentTeam(agentId: string): Promise<string | null> {
    return this.repository.agentTeam(agentId);
  }

  /** What the next run would retire for one agent and why, and what it would skip and why. */
  async preview(agentId: string, now: Date): Promise<AgentPlan> {
    if (!(await this.repository.agentExists(agentId))) {
      throw new RetirementError(RetirementErrorCode.AgentNotFound, `agent "${agentId}" not found`, { agentId });
    }
    const policy = retirementPolicy(this.config);
    const [input] = await this.repository.loadInputs(retirementWindowStart(now, policy), agentId);
    return { agentId, plan: planRetirement(input.candidates, input.nodes, now, policy) };
  }
}

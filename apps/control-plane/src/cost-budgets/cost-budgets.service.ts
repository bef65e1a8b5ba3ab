import { Injectable } from '@nestjs/common';
import { COST_CLASSES, type CostBudgets, type CostClass, type ValidationIssue } from '@cp/capabilities';
import type { AdminPrincipal } from '@cp/auth';
import { RegistryWriter } from '@cp/db';
import { InputValidationError } from '../common/errors';
import { ManifestAccess } from '../manifests/manifest-access';
import type { CostBudgetInput, CostBudgetsModel, SetCostBudgetsInput } from './dto/cost-budgets.dto';
import { CostBudgetsRepository } from './cost-budgets.repository';

const MAX_CALLS = 1_000_000_000;
const MAX_WINDOW_S = 86_400;

/**
 * Rate budgets per cost class, per agent (issue 14). They travel to the nodes in the bundle's
 * snapshot, so setting them is a registry change: revision bump, outbox, audit.
 */
@Injectable()
export class CostBudgetsService {
  constructor(
    private readonly access: ManifestAccess,
    private readonly repository: CostBudgetsRepository,
    private readonly writer: RegistryWriter,
  ) {}

  async get(principal: AdminPrincipal, agentId: string): Promise<CostBudgetsModel> {
    // Read access is the same as reading the agent's registry.
    const snapshot = await this.access.registryForRead(principal, agentId);
    return toModel(agentId, snapshot.revision, snapshot.costBudgets);
  }

  async set(principal: AdminPrincipal, input: SetCostBudgetsInput): Promise<CostBudgetsModel> {
    const snapshot = await this.access.registryForWrite(principal, input.agentId, input.expectedRevision);
    const budgets = parseBudgets(input.budgets);
    const { revision } = await this.writer.change(
      { agentId: input.agentId, expectedRevision: input.expectedRevision, actor: principal.subject, summary: 'set cost budgets' },
      async (tx) => {
        await this.repository.save(tx, input.agentId, budgets);
        return {
          result: undefined,
          audit: [
            {
              action: 'agent.cost-budgets',
              targetType: 'agent',
              targetId: input.agentId,
              before: snapshot.costBudgets ?? null,
              after: budgets ?? null,
            },
          ],
        };
      },
    );
    return toModel(input.agentId, revision, budgets);
  }
}

function parseBudgets(list: CostBudgetInput[]): CostBudgets | undefined {
  const issues: ValidationIssue[] = [];
  const out: CostBudgets = {};
  list.forEach((b, i) => {
    const at = `$.budgets[${i}]`;
    if (!COST_CLASSES.includes(b.costClass)) issues.push({ path: `${at}.costClass`, message: `must be one of ${COST_CLASSES.join(', ')}` });
    else if (out[b.costClass]) issues.push({ path: `${at}.costClass`, message: `"${b.costClass}" is listed twice` });
    if (!Number.isInteger(b.calls) || b.calls < 1 || b.calls > MAX_CALLS)
      issues.push({ path: `${at}.calls`, message: `must be an integer from 1 to ${MAX_CALLS}` });
    if (!Number.isInteger(b.windowS) || b.windowS < 1 || b.windowS > MAX_WINDOW_S)
      issues.push({ path: `${at}.windowS`, message: `must be an integer from 1 to ${MAX_WINDOW_S}` });
    if (COST_CLASSES.includes(b.costClass)) out[b.costClass] = { calls: b.calls, windowS: b.windowS };
  });
  if (issues.length) throw new InputValidationError(issues);
  return Object.keys(out).length ? out : undefined;
}

function toModel(agentId: string, revision: number, budgets: CostBudgets | undefined): CostBudgetsModel {
  return {
    agentId,
    revision,
    budgets: COST_CLASSES.filter((c) => budgets?.[c]).map((c: CostClass) => ({ costClass: c, ...budgets![c]! })),
  };
}

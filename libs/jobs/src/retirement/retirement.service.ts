import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { RegistryWriter } from '@cp/db';
import { Clock } from '@cp/common';
import type { RetirementTrigger } from '../queues';
import { RetirementPlanner, type AgentPlan } from './retirement-planner';
import { RetirementRepository } from './retirement.repository';
import { RetirementRunsRepository } from './retirement-runs.repository';
import {
  MAX_SKIPPED_RECORDED,
  RETIRE_ACTION,
  RETIREMENT_ACTOR,
  type RetiredCapability,
  type RetirementRunError,
  type RetirementRunRecord,
  type SkippedCapability,
} from './retirement.types';

/** Thrown inside a registry change to roll it back: another run already retired everything. */
class NothingLeftToRetire extends Error {}

export interface RunRequest {
  trigger: RetirementTrigger;
  runId?: string;
  requestedBy?: string | null;
}

/**
 * One retirement run: plan every agent, then retire each agent's eligible capabilities in one
 * registry change (revision + outbox + one audit event per capability, one transaction). Safe to
 * run twice at once or again after a crash: see docs/adr/0040-retirement-exactly-once.md.
 */
@Injectable()
export class RetirementService {
  private readonly logger = new Logger(RetirementService.name);

  constructor(
    private readonly planner: RetirementPlanner,
    private readonly repository: RetirementRepository,
    private readonly runs: RetirementRunsRepository,
    private readonly writer: RegistryWriter,
    private readonly clock: Clock,
  ) {}

  /** Records a queued manual run (the worker picks it up). */
  async queue(requestedBy: string | null): Promise<RetirementRunRecord> {
    return this.runs.createQueued(randomUUID(), 'manual', requestedBy);
  }

  /** Runs now. Returns null when `runId` names a run that already finished (a redelivered job). */
  async run(request: RunRequest): Promise<RetirementRunRecord | null> {
    const now = this.clock.now();
    const runId = request.runId ?? randomUUID();
    const started = await this.runs.start(runId, request.trigger, request.requestedBy ?? null, now);
    if (!started) return null;
    const retired: RetiredCapability[] = [];
    const skipped: SkippedCapability[] = [];
    const errors: RetirementRunError[] = [];
    let skippedCount = 0;
    try {
      for (const { agentId, plan } of await this.planner.planAll(now)) {
        skippedCount += plan.skip.length;
        for (const decision of plan.skip) {
          if (skipped.length >= MAX_SKIPPED_RECORDED) break;
          skipped.push({
            agentId,
            capabilityId: decision.capabilityId,
            reasons: decision.reasons.map(({ code, message }) => ({ code, message })),
          });
        }
        if (plan.retire.length === 0) continue;
        try {
          retired.push(...(await this.retireAgent(runId, { agentId, plan }, now)));
        } catch (error) {
          // One agent's failure does not stop the others; the next run retries it.
          errors.push({ agentId, message: (error as Error).message });
          this.logger.error(`retirement run ${runId}: agent ${agentId} failed: ${(error as Error).message}`);
        }
      }
    } catch (error) {
      errors.push({ agentId: null, message: (error as Error).message });
      this.logger.error(`retirement run ${runId} failed: ${(error as Error).message}`);
    }
    return this.runs.finish(runId, {
      status: errors.length ? 'failed' : 'succeeded',
      finishedAt: this.clock.now(),
      retired,
      skippedCount,
      skipped,
      errors,
    });
  }

  async latestRuns(limit: number): Promise<RetirementRunRecord[]> {
    return this.runs.latest(limit);
  }

  async findRun(id: string): Promise<RetirementRunRecord | null> {
    return this.runs.find(id);
  }

  private async retireAgent(runId: string, { agentId, plan }: AgentPlan, now: Date): Promise<RetiredCapability[]> {
    const ids = plan.retire.map((d) => d.capabilityId);
    const because = new Map(plan.retire.map((d) => [d.capabilityId, d.because]));
    try {
      const { result, revision } = await this.writer.change(
        { agentId, actor: RETIREMENT_ACTOR, summary: `retirement run ${runId}: ${ids.length} deprecated capabilities without calls` },
        async (tx) => {
          const rows = await this.repository.retire(tx, agentId, ids, now);
          // All already removed (a concurrent run got there first): roll back, no empty revision.
          if (rows.length === 0) throw new NothingLeftToRetire();
          return {
            result: rows.map((r) => r.capabilityId),
            audit: rows.map((row) => ({
              action: RETIRE_ACTION,
              targetType: 'capability',
              targetId: row.capabilityId,
              before: {
                state: 'deprecated',
                deprecatedAt: row.deprecatedAt.toISOString(),
                replacedBy: row.replacedBy,
                deprecationReason: row.deprecationReason,
              },
              after: { state: 'removed', removedAt: now.toISOString(), runId, because: because.get(row.capabilityId) },
            })),
          };
        },
      );
      return result.map((capabilityId) => ({ agentId, capabilityId, revision, removedAt: now.toISOString() }));
    } catch (error) {
      if (error instanceof NothingLeftToRetire) return [];
      throw error;
    }
  }
}

/**
 * The execution policy's generic limits, enforced by the SDK before and around a handler
 * (issue 14): input bytes and parts, concurrent tasks per tenant (per node), a rate budget per
 * tenant × capability from the capability's cost_class (shared by every replica through Redis),
 * and timeout_s (the handler's abort signal fires; the task fails clearly).
 *
 * A refused call never reaches the handler. One contained unit, called from one place in
 * A2AService, so the service's task handling can change around it.
 */
import type { RedisClient } from '@cp/common/core';
import type { CostBudget, CostBudgets, CostClass } from '@cp/capabilities';
import { A2AError, A2AErrorName } from './a2a-errors';
import type { WireMessage } from './wire-types';

export interface LimitedCall {
  agentId: string;
  capabilityId: string;
  tenant: string;
  /** The capability's limits (typed: see typedLimits). */
  limits: Readonly<Record<string, number | string>>;
  budgets: CostBudgets | undefined;
  message: WireMessage;
}

/** Takes one call from a budget: allowed, or refused with the milliseconds until the window resets. */
export interface BudgetStore {
  take(key: string, budget: CostBudget): Promise<{ allowed: true } | { allowed: false; retryAfterMs: number }>;
}

/**
 * Fixed windows aligned to the epoch, one counter per (agent, capability, tenant, window), one
 * round trip per call (a Lua script: INCR, PEXPIRE on first use, compare). Atomic, so replicas
 * together never admit more than `calls` in a window.
 */
const TAKE = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if n > tonumber(ARGV[1]) then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl < 0 then ttl = tonumber(ARGV[2]) end
  return ttl
end
return -1`;

type WithTake = RedisClient & { cpBudgetTake(key: string, calls: number, ttlMs: number): Promise<number> };

export class RedisBudgetStore implements BudgetStore {
  private readonly redis: WithTake;

  constructor(
    redis: RedisClient,
    private readonly keyPrefix = 'cp:',
    private readonly now: () => number = Date.now,
  ) {
    if (!(redis as unknown as Partial<WithTake>).cpBudgetTake) redis.defineCommand('cpBudgetTake', { numberOfKeys: 1, lua: TAKE });
    this.redis = redis as unknown as WithTake;
  }

  async take(key: string, budget: CostBudget) {
    const windowMs = budget.windowS * 1000;
    const t = this.now();
    const window = Math.floor(t / windowMs);
    const ttlMs = (window + 1) * windowMs - t + 1000;
    const over = await this.redis.cpBudgetTake(`${this.keyPrefix}budget:${key}:${window}`, budget.calls, ttlMs);
    // The window ends at (window+1)*windowMs whatever the key's TTL margin says.
    return over < 0 ? { allowed: true as const } : { allowed: false as const, retryAfterMs: (window + 1) * windowMs - t };
  }
}

export interface ExecutionLimitsOptions {
  /** Budgets need a store; without one, cost_class budgets are not enforced. */
  budgets?: BudgetStore;
  /**
   * A budget check that fails or takes longer than this (Redis down or slow) lets the call through
   * (default 500 ms): the node keeps serving without Redis, as it keeps syncing without it.
   */
  budgetTimeoutMs?: number;
  /** Told when a budget check failed open. */
  onBudgetUnavailable?: (error: Error) => void;
}

/** A limit refused the call before the handler ran (the caller gets it as is). */
export class LimitExceededError extends A2AError {}

export type TimedResult<T> = { timedOut: false; value: T } | { timedOut: true };

/** A call that passed the limits: it holds a concurrency slot until it runs or is released. */
export interface Admission {
  run<T>(work: (signal: AbortSignal) => Promise<T>): Promise<TimedResult<T>>;
  release(): void;
}

export class ExecutionLimits {
  private readonly running = new Map<string, number>();

  constructor(private readonly options: ExecutionLimitsOptions = {}) {}

  /** In-flight tasks of one tenant on this node (for tests and metrics). */
  inFlight(tenant: string): number {
    return this.running.get(tenant) ?? 0;
  }

  /**
   * Checks the call, then runs `work` with an abort signal that fires at timeout_s. Throws the
   * A2A error of the limit that refused it; resolves `{ timedOut: true }` when the time ran out.
   */
  /** Admits, runs and releases in one step (the admission's whole life). */
  async run<T>(call: LimitedCall, work: (signal: AbortSignal) => Promise<T>): Promise<TimedResult<T>> {
    return (await this.admit(call)).run(work);
  }

  /**
   * Input size, concurrency and the cost-class budget, checked before anything is stored or
   * streamed: throws the refusal, or returns an admission holding the tenant's concurrency slot
   * until `run` ends or `release` is called (the caller must do one of them).
   */
  async admit(call: LimitedCall): Promise<Admission> {
    checkInput(call);
    const max = call.limits.max_concurrent_tasks;
    const current = this.inFlight(call.tenant);
    if (typeof max === 'number' && current >= max) {
      throw rateLimited(
        `tenant "${call.tenant}" already has ${current} task(s) running for capability "${call.capabilityId}" (max_concurrent_tasks ${max}); retry when one finishes`,
        1000,
        { limit: 'max_concurrent_tasks', max: String(max) },
      );
    }
    // Counted before the first await, so concurrent calls see each other.
    this.running.set(call.tenant, current + 1);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      const left = this.inFlight(call.tenant) - 1;
      if (left <= 0) this.running.delete(call.tenant);
      else this.running.set(call.tenant, left);
    };
    try {
      await this.takeBudget(call);
    } catch (error) {
      release();
      throw error;
    }
    return {
      release,
      run: async <T>(work: (signal: AbortSignal) => Promise<T>): Promise<TimedResult<T>> => {
        try {
          return await withTimeout(call.limits.timeout_s, work);
        } finally {
          release();
        }
      },
    };
  }

  private async takeBudget(call: LimitedCall): Promise<void> {
    const costClass = call.limits.cost_class as CostClass | undefined;
    const budget = costClass ? call.budgets?.[costClass] : undefined;
    if (!budget || !this.options.budgets) return;
    const key = `{${call.agentId}}:${call.capabilityId}:${encodeURIComponent(call.tenant)}`;
    const taken = await this.takeOrFailOpen(key, budget);
    if (!taken.allowed) {
      throw rateLimited(
        `tenant "${call.tenant}" is over its budget for capability "${call.capabilityId}" (cost class ${costClass}: ${budget.calls} calls per ${budget.windowS} s)`,
        taken.retryAfterMs,
        { limit: 'cost_class', costClass: costClass!, calls: String(budget.calls), windowS: String(budget.windowS) },
      );
    }
  }

  private async takeOrFailOpen(key: string, budget: CostBudget): ReturnType<BudgetStore['take']> {
    let timer: NodeJS.Timeout | undefined;
    const limitMs = this.options.budgetTimeoutMs ?? 500;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`budget check took over ${limitMs} ms`)), limitMs);
    });
    try {
      return await Promise.race([this.options.budgets!.take(key, budget), timeout]);
    } catch (error) {
      this.options.onBudgetUnavailable?.(error as Error);
      return { allowed: true };
    } finally {
      clearTimeout(timer);
    }
  }
}

function checkInput(call: LimitedCall): void {
  const maxParts = call.limits.max_input_parts;
  if (typeof maxParts === 'number' && call.message.parts.length > maxParts) {
    throw new LimitExceededError(
      A2AErrorName.PayloadTooLarge,
      `the message has ${call.message.parts.length} parts; capability "${call.capabilityId}" accepts at most ${maxParts}`,
      { limit: 'max_input_parts', max: String(maxParts) },
      'TOO_MANY_PARTS',
    );
  }
  const maxBytes = call.limits.max_input_bytes;
  if (typeof maxBytes === 'number') {
    const bytes = Buffer.byteLength(JSON.stringify(call.message.parts), 'utf8');
    if (bytes > maxBytes)
      throw new LimitExceededError(
        A2AErrorName.PayloadTooLarge,
        `the message's parts are ${bytes} bytes; capability "${call.capabilityId}" accepts at most ${maxBytes}`,
        { limit: 'max_input_bytes', max: String(maxBytes) },
        'INPUT_TOO_LARGE',
      );
  }
}

function rateLimited(message: string, retryAfterMs: number, metadata: Record<string, string>): A2AError {
  const retryAfter = String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
  return new LimitExceededError(A2AErrorName.RateLimited, message, { ...metadata, retryAfterSeconds: retryAfter });
}

async function withTimeout<T>(
  timeoutS: number | string | undefined,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<{ timedOut: false; value: T } | { timedOut: true }> {
  const controller = new AbortController();
  if (typeof timeoutS !== 'number') return { timedOut: false, value: await work(controller.signal) };
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<{ timedOut: true }>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`timeout_s ${timeoutS} elapsed`));
      resolve({ timedOut: true });
    }, timeoutS * 1000);
  });
  try {
    // A handler that ignores its signal is not awaited past the limit; its result is discarded.
    return await Promise.race([work(controller.signal).then((value) => ({ timedOut: false as const, value })), expired]);
  } finally {
    clearTimeout(timer);
  }
}

import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import type { AdminPrincipal } from '@cp/auth';
import { AgentsService } from '../agents/agents.service';
import { validateInput } from '../common/errors';
import { decodeCursor, pageSize, toPage, type Page, type PageInput } from '../common/graphql/pagination';
import type { RequestLoaders } from '../common/graphql/request-loaders';
import { UsageRepository, usageKey, type UsageDay, type UsageKey, type UsageTotal, type UsageWindow } from './usage.repository';
import type { UsageFilter, UsageWindowInput } from './dto/usage.model';

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  // Date.parse accepts 2026-02-31 (as March 3): only a date that reads back the same exists.
  .refine((d) => {
    const time = Date.parse(`${d}T00:00:00Z`);
    return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === d;
  }, 'is not a valid date');
const windowSchema = z
  .object({ from: day.nullish(), to: day.nullish() })
  .refine((w) => !w.from || !w.to || w.from <= w.to, { message: '"from" must not be after "to"', path: ['from'] });

const NO_WINDOW: UsageWindow = Object.freeze({ from: undefined, to: undefined });

/** A key's total from a batch's answer; a key without buckets has no row there: no calls. */
const totalOf = (found: Map<string, UsageTotal>, key: UsageKey): UsageTotal => found.get(usageKey(key)) ?? { calls: 0, lastCallAt: null };

@Injectable()
export class UsageService {
  constructor(
    private readonly usage: UsageRepository,
    private readonly agents: AgentsService,
  ) {}

  window(input: UsageWindowInput | undefined): UsageWindow {
    // The common case, once per manifest of a list page: no window, nothing to validate.
    if (input?.from == null && input?.to == null) return NO_WINDOW;
    const w = validateInput(windowSchema, { from: input?.from, to: input?.to }, '$.window');
    return { from: w.from ?? undefined, to: w.to ?? undefined };
  }

  /**
   * Totals of one manifest through the request's DataLoader: every manifest of a list asks, one
   * SQL query answers them all. Keyed by window (the scope) and (agent, capability).
   */
  total(loaders: RequestLoaders, key: UsageKey, window: UsageWindow): Promise<UsageTotal> {
    return this.loader(loaders, window).load(key);
  }

  private loader(loaders: RequestLoaders, window: UsageWindow) {
    return loaders.get<UsageKey, UsageTotal, string>(
      `usage-totals:${window.from ?? ''}:${window.to ?? ''}`,
      async (keys) => {
        const totals = await this.usage.totals(keys, window);
        return keys.map((k) => totalOf(totals, k));
      },
      { cacheKeyFn: usageKey },
    );
  }

  async daily(principal: AdminPrincipal, filter: UsageFilter, page: PageInput | undefined): Promise<Page<UsageDay>> {
    await this.agents.get(principal, filter.agentId);
    const window = this.window(filter);
    const size = pageSize(page);
    const cursor = decodeCursor(page?.after);
    const after = cursor?.length === 3 ? (cursor.map(String) as [string, string, string]) : undefined;
    const rows = await this.usage.daily(
      { agentId: filter.agentId, capabilityId: filter.capabilityId ?? undefined, tenantId: filter.tenantId ?? undefined, ...window },
      after,
      size + 1,
    );
    return toPage(rows, size, (r) => [r.day, r.capabilityId, r.tenantId]);
  }
}

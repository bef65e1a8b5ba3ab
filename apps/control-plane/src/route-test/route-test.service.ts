import { Injectable } from '@nestjs/common';
import type { AdminPrincipal } from '@cp/auth';
import {
  parseRoutingTests,
  routeChanges,
  routingTestSummary,
  runRoutingTests,
  validateManifests,
  type RoutingOutcome,
} from '@cp/capabilities';
import { RegistrySnapshotRepository } from '@cp/db';
import { AgentsService } from '../agents/agents.service';
import { InputValidationError, notFound } from '../common/errors';
import type { RouteTestInput, RouteTestReportModel } from './dto/route-test.model';

const label = (o: RoutingOutcome) => (o.kind === 'routed' ? o.id : o.kind === 'clarify' ? 'clarify' : 'failed');

/**
 * Routing tests through the admin API (ADR 0092): what `cpctl route test` does offline, against
 * the current registry or a proposed manifest set (then also the labelled messages whose route
 * changes). Reads only: any reader of the agent may run it.
 */
@Injectable()
export class RouteTestService {
  constructor(
    private readonly agents: AgentsService,
    private readonly snapshots: RegistrySnapshotRepository,
  ) {}

  async run(principal: AdminPrincipal, input: RouteTestInput): Promise<RouteTestReportModel> {
    await this.agents.get(principal, input.agentId);
    const current = await this.snapshots.snapshot(input.agentId);
    if (!current) throw notFound('agent', input.agentId);
    let proposed = current;
    if (input.manifests !== null && input.manifests !== undefined) {
      const validated = validateManifests(input.manifests);
      if (!validated.ok)
        throw new InputValidationError(validated.errors.map((e) => ({ ...e, path: e.path.replace(/^\$/, '$.manifests') })));
      proposed = { ...current, manifests: validated.manifests };
    }
    const parsed = parseRoutingTests(input.tests, new Set(proposed.manifests.map((m) => m.id)));
    if (!parsed.ok) throw new InputValidationError(parsed.errors.map((e) => ({ ...e, path: e.path.replace(/^\$/, '$.tests') })));
    const report = runRoutingTests(proposed, parsed.suite);
    const changes = proposed === current ? [] : routeChanges(current, proposed, parsed.suite);
    return {
      revision: current.revision,
      ...routingTestSummary(report),
      results: report.results.map((r) => ({
        index: r.index,
        text: r.text,
        expect: r.expect,
        got: label(r.outcome),
        confidence: r.outcome.kind === 'failed' ? null : r.outcome.confidence,
        correct: r.correct,
        wrong: r.wrong,
        layer: r.decision.layer,
        reason: r.decision.reason,
        candidates: r.decision.candidates,
        indexSize: r.decision.indexSize,
      })),
      changes: changes.map((c) => ({ index: c.index, text: c.text, expect: c.expect, before: label(c.before), after: label(c.after) })),
    };
  }
}

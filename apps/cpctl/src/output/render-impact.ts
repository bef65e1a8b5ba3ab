/** The usage gate's report (issue 21): each change that takes a capability from callers, with them. */
import type { PlanImpact } from '../api/registry-api';
import type { Reporter } from './reporter';

/** Changes with callers in the window that --accept-impact does not name (the gate fails on these). */
export function unacceptedImpact(impact: readonly PlanImpact[], accepted: readonly string[]): PlanImpact[] {
  return impact.filter((c) => c.callers.length > 0 && !accepted.includes(c.capabilityId));
}

export function renderImpact(r: Reporter, impact: readonly PlanImpact[], days: number, accepted: readonly string[]): void {
  if (impact.length === 0) {
    r.line(`Impact on callers (last ${days} days): none`);
    return;
  }
  r.line(`Impact on callers (last ${days} days):`);
  for (const c of impact) {
    const who =
      c.callers.length === 0
        ? 'no calls'
        : `${c.calls} call(s) from ${c.callers.map((t) => `${t.tenantId} (${t.calls}, last ${t.lastCallAt})`).join(', ')}`;
    const status = c.callers.length === 0 ? '' : accepted.includes(c.capabilityId) ? ' [accepted]' : ` ${r.c.red('[not accepted]')}`;
    r.line(`  ${r.c.red('!')} ${c.capabilityId}: ${c.kind} (${c.detail}): ${who}${status}`);
  }
}

export function impactAdvice(r: Reporter, blocked: readonly PlanImpact[]): void {
  const ids = [...new Set(blocked.map((c) => c.capabilityId))];
  r.problem(
    r.c.red(
      `Callers still use ${ids.join(', ')}: tell them (deprecate with a replacement and a sunset date), or re-run with --accept-impact ${ids.join(' ')}.`,
    ),
  );
}

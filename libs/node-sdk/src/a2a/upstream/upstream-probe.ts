/**
 * Servability of upstream-served capabilities (issue 28 item 6, ADR 0275): a gateway node fetches
 * the own card of every upstream its bundle names (after each applied revision, and every
 * `intervalMs`) and keeps, per card, whether it answered and which skills it lists. NodeSync sends
 * the report at register and with every heartbeat (the plan gate and the fleet view read it), and
 * the node's own status lists what it cannot serve with the core's rule (upstreamProblem).
 *
 * Each fetch is the webhook guard's (safeFetch: every resolved address checked, the agent's
 * platform-admin upstreamAllow the only way to a private one, no redirects), bounded in time and
 * bytes; the card is read for its skill ids and names only, nothing else of it is kept or logged.
 */
import { safeFetch, type HostResolver } from '@cp/common/core';
import {
  MAX_REPORTED_CARDS,
  MAX_REPORTED_SKILLS,
  UPSTREAM_REASON_MAX,
  UPSTREAM_SKILL_MAX,
  upstreamCardUrl,
  type PolicyEntry,
  type UpstreamCardReport,
} from '@cp/capabilities';

export interface UpstreamProbeOptions {
  /** The served bundle's entries and the agent's upstreamAllow (undefined before the first bundle). */
  bundle: () => { policy: { entries: readonly PolicyEntry[] }; upstreamAllow: readonly string[] } | undefined;
  /** Between two rounds of fetches (ms). */
  intervalMs: number;
  /** Per card fetch, connect to last byte (ms). */
  timeoutMs: number;
  /** Largest card read (bytes). */
  maxCardBytes: number;
  /** Called after each round whose outcome differs from the previous one (NodeSync reports it now). */
  onChange?: (report: UpstreamCardReport[]) => void;
  log?: { warn(fields: Record<string, unknown>, message: string): void };
  resolve?: HostResolver;
  now?: () => Date;
}

/** The report is sent in every heartbeat: past this many bytes, skill names go, then skills are cut. */
const REPORT_BUDGET_BYTES = 256 * 1024;
const NAME_MAX = 100;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const clean = (s: string, max: number) => s.replace(/\p{Cc}/gu, ' ').slice(0, max);

/** The skills of a card body, or why it is not a card the node can read. */
export function skillsOfCard(body: string): { skills: { id: string; name?: string }[]; truncated: boolean } | { reason: string } {
  let card: unknown;
  try {
    card = JSON.parse(body);
  } catch {
    return { reason: 'the card is not JSON' };
  }
  if (!isObject(card)) return { reason: 'the card is not a JSON object' };
  if (!Array.isArray(card.skills)) return { reason: 'the card has no skills list' };
  const skills: { id: string; name?: string }[] = [];
  const seen = new Set<string>();
  for (const s of card.skills) {
    if (!isObject(s) || typeof s.id !== 'string' || s.id === '' || s.id.length > UPSTREAM_SKILL_MAX || /\p{Cc}/u.test(s.id)) continue;
    if (seen.has(s.id)) continue;
    seen.add(s.id);
    if (skills.length === MAX_REPORTED_SKILLS) return { skills, truncated: true };
    const name = typeof s.name === 'string' ? clean(s.name, NAME_MAX).trim() : '';
    skills.push(name ? { id: s.id, name } : { id: s.id });
  }
  return { skills, truncated: false };
}

/** Keeps the report inside REPORT_BUDGET_BYTES: names dropped first, then the longest skill lists cut (marked truncated). */
export function boundedReport(report: UpstreamCardReport[]): UpstreamCardReport[] {
  const size = (r: UpstreamCardReport[]) => Buffer.byteLength(JSON.stringify(r));
  if (size(report) <= REPORT_BUDGET_BYTES) return report;
  let out = report.map((r) => ({ ...r, skills: r.skills.map((s) => ({ id: s.id })) }));
  while (size(out) > REPORT_BUDGET_BYTES) {
    const longest = out.reduce((a, b) => (b.skills.length > a.skills.length ? b : a));
    if (longest.skills.length === 0) break;
    longest.skills = longest.skills.slice(0, Math.floor(longest.skills.length / 2));
    longest.truncated = true;
    out = [...out];
  }
  return out;
}

export class UpstreamProbe {
  private last: UpstreamCardReport[] = [];
  private timer?: NodeJS.Timeout;
  private running?: Promise<UpstreamCardReport[]>;
  private again = false;

  constructor(private readonly options: UpstreamProbeOptions) {}

  /** The last round's report (empty before the first round, and for a bundle without upstreams). */
  report(): UpstreamCardReport[] {
    return this.last;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.probe(), this.options.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One round now (a round already running is followed by one more, so a new bundle is always probed). */
  probe(): Promise<UpstreamCardReport[]> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.round().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        void this.probe();
      }
    });
    return this.running;
  }

  private async round(): Promise<UpstreamCardReport[]> {
    const bundle = this.options.bundle();
    const cards = [...new Set((bundle?.policy.entries ?? []).flatMap((e) => (e.upstream ? [upstreamCardUrl(e.upstream)] : [])))]
      .sort()
      .slice(0, MAX_REPORTED_CARDS);
    const allow = bundle?.upstreamAllow ?? [];
    const report = boundedReport(await Promise.all(cards.map((card) => this.fetchCard(card, allow))));
    const changed = JSON.stringify(strip(report)) !== JSON.stringify(strip(this.last));
    this.last = report;
    if (changed) {
      for (const r of report.filter((c) => !c.ok))
        this.options.log?.warn({ card: r.card, reason: r.reason }, 'an upstream card did not answer');
      this.options.onChange?.(report);
    }
    return report;
  }

  private async fetchCard(card: string, allow: readonly string[]): Promise<UpstreamCardReport> {
    const checkedAt = (this.options.now?.() ?? new Date()).toISOString();
    const failed = (reason: string): UpstreamCardReport => ({
      card,
      ok: false,
      reason: clean(reason, UPSTREAM_REASON_MAX),
      skills: [],
      checkedAt,
    });
    let status: number;
    let body: string;
    try {
      const res = await safeFetch(
        card,
        { headers: { accept: 'application/json' } },
        {
          allow,
          resolve: this.options.resolve,
          maxRedirects: 0,
          timeoutMs: this.options.timeoutMs,
          maxResponseBytes: this.options.maxCardBytes,
          purpose: 'upstream card',
        },
      );
      status = res.status;
      body = res.body.toString('utf8');
    } catch (error) {
      return failed(String((error as Error).message));
    }
    if (status !== 200) return failed(`the upstream card answered HTTP ${status}`);
    const skills = skillsOfCard(body);
    if ('reason' in skills) return failed(skills.reason);
    return { card, ok: true, skills: skills.skills, ...(skills.truncated ? { truncated: true } : {}), checkedAt };
  }
}

/** A report without its timestamps: what "changed" compares. */
const strip = (report: UpstreamCardReport[]) => report.map(({ checkedAt: _at, ...rest }) => rest);

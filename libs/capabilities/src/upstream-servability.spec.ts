/**
 * Servability and drift of upstream-served capabilities (issue 28 item 6, ADR 0275): the rules the
 * node, the plan gate and the fleet view share, over a gateway node's report of upstream cards.
 */
import { financeAgentExample } from './fixtures/finance-agent';
import { unservedCapabilities, unservedMessage, type NodeInventory } from './servability';
import { given } from './testing/given';
import type { CapabilityManifest } from './types';
import { upstreamCardUrl, upstreamSkillId, type UpstreamSpec } from './upstream';
import {
  latestReports,
  upstreamDrift,
  upstreamProblem,
  upstreamReportSchema,
  MAX_REPORTED_SKILLS,
  type UpstreamCardReport,
} from './upstream-servability';

const RECON: UpstreamSpec = { url: 'https://recon.example.com/a2a/jsonrpc', binding: 'jsonrpc', version: '1.0' };
const CARD = 'https://recon.example.com/.well-known/agent-card.json';
const AT = '2026-12-12T09:00:00.000Z';
const served = (id: string, upstream: UpstreamSpec = RECON, extra: Partial<CapabilityManifest> = {}) =>
  given.manifest({ id, state: 'ga', visibility: 'public', handler: 'gateway.forward', upstream, ...extra });
const ok = (skills: string[], card = CARD, checkedAt = AT): UpstreamCardReport => ({
  card,
  ok: true,
  skills: skills.map((id) => ({ id, name: `skill ${id}` })),
  checkedAt,
});
const down = (reason: string, card = CARD): UpstreamCardReport => ({ card, ok: false, reason, skills: [], checkedAt: AT });
const gateway = (nodeId: string, upstreams?: UpstreamCardReport[]): NodeInventory => ({ nodeId, handlers: [], upstreams });

describe('upstream card and skill', () => {
  it('defaults to the well-known card at the URL origin and to the capability id', () => {
    expect(upstreamCardUrl(RECON)).toBe(CARD);
    expect(upstreamCardUrl({ ...RECON, card: 'https://cards.example.com/recon.json' })).toBe('https://cards.example.com/recon.json');
    expect(upstreamSkillId(RECON, 'reconcile-invoice')).toBe('reconcile-invoice');
    expect(upstreamSkillId({ ...RECON, skill: 'Reconcile_Invoice' }, 'reconcile-invoice')).toBe('Reconcile_Invoice');
  });
});

describe('upstreamProblem', () => {
  const m = served('reconcile-invoice');
  it('is servable when the card answered and lists the skill, or has not been fetched yet', () => {
    expect(upstreamProblem(m, [ok(['reconcile-invoice'])])).toBeUndefined();
    expect(upstreamProblem(m, [])).toBeUndefined();
    expect(upstreamProblem(m, [ok([], 'https://other.example.com/.well-known/agent-card.json')])).toBeUndefined();
  });
  it('names the card and why when it did not answer, or no longer lists the skill', () => {
    expect(upstreamProblem(m, [down('the upstream card answered HTTP 503')])).toBe(
      `its upstream's card ${CARD} did not answer: the upstream card answered HTTP 503`,
    );
    expect(upstreamProblem(m, [ok(['something-else'])])).toBe(`its upstream's card ${CARD} no longer lists skill "reconcile-invoice"`);
  });
  it('a node that is not a gateway cannot serve it; a truncated card cannot prove the skill absent', () => {
    expect(upstreamProblem(m, undefined)).toMatch(/does not forward to upstream agents/);
    expect(upstreamProblem(m, [{ ...ok(['a']), truncated: true }])).toBeUndefined();
  });
  it('a capability without an upstream is not its business', () => {
    expect(upstreamProblem(given.manifest({ id: 'x' }), undefined)).toBeUndefined();
  });
});

describe('the plan gate with upstreams (unservedCapabilities)', () => {
  const [lookup, recon] = financeAgentExample().manifests;
  const gate = (after: CapabilityManifest[], live: NodeInventory[], allowUnserved?: string[]) =>
    unservedCapabilities({ before: [lookup, recon], after, previewTenantsBefore: [], previewTenantsAfter: [], live, allowUnserved });

  it('a healthy upstream needs no allowUnserved, whatever handlers the gateway has', () => {
    expect(gate([lookup, recon, served('reconcile-invoice-v2', RECON)], [gateway('gw-1', [ok(['reconcile-invoice-v2'])])])).toEqual([]);
    // Not fetched yet (just imported): the node fetches it after the apply.
    expect(gate([lookup, recon, served('fresh-skill')], [gateway('gw-1', [])])).toEqual([]);
  });

  it('refuses an upstream that is down or no longer lists the skill, naming each node and why', () => {
    const out = gate(
      [lookup, recon, served('reconcile-invoice-v2')],
      [
        gateway('gw-b', [down('the upstream card timed out')]),
        gateway('gw-a', [ok(['other'])]),
        gateway('gw-c', [ok(['reconcile-invoice-v2'])]),
      ],
    );
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ capabilityId: 'reconcile-invoice-v2', nodesLacking: ['gw-a', 'gw-b'] });
    expect(out[0].reasons![0]).toMatch(/no longer lists skill "reconcile-invoice-v2"/);
    expect(out[0].reasons![1]).toMatch(/did not answer: the upstream card timed out/);
    expect(unservedMessage(out[0])).toMatch(
      /^capability "reconcile-invoice-v2" would be in a card but its upstream cannot be served.*gw-a: .*gw-b: /,
    );
    expect(gate([lookup, recon, served('reconcile-invoice-v2')], [gateway('gw-a', [ok(['other'])])], ['reconcile-invoice-v2'])).toEqual([]);
  });

  it('refuses on a live node that is not a gateway', () => {
    const out = gate([lookup, recon, served('reconcile-invoice-v2')], [gateway('old-sdk', undefined)]);
    expect(out.map((u) => u.nodesLacking)).toEqual([['old-sdk']]);
  });

  it('an unchanged upstream capability does not block an unrelated plan; moving it to another skill is checked', () => {
    const before = [lookup, recon, served('reconcile-invoice-v2')];
    const live = [gateway('gw-a', [down('HTTP 500')])];
    const common = { before, previewTenantsBefore: [], previewTenantsAfter: [], live };
    expect(unservedCapabilities({ ...common, after: before })).toEqual([]);
    const moved = served('reconcile-invoice-v2', { ...RECON, skill: 'renamed' });
    expect(unservedCapabilities({ ...common, after: [lookup, recon, moved] }).map((u) => u.capabilityId)).toEqual(['reconcile-invoice-v2']);
  });
});

describe('upstreamDrift', () => {
  it('lists skills no manifest covers and manifests whose skill is gone, per card', () => {
    const manifests = [
      served('reconcile-invoice'),
      served('match-po', { ...RECON, skill: 'po-match' }),
      served('gone-skill'),
      served('removed-one', RECON, { state: 'removed' }),
      served('elsewhere', { ...RECON, url: 'https://b.example.com/a2a' }),
      given.manifest({ id: 'local' }),
    ];
    const drift = upstreamDrift(manifests, [ok(['reconcile-invoice', 'po-match', 'new-skill', 'removed-one'])]);
    expect(drift.map((d) => [d.card, d.status])).toEqual([
      ['https://b.example.com/.well-known/agent-card.json', 'unchecked'],
      [CARD, 'ok'],
    ]);
    expect(drift[1].covered).toEqual([
      { capabilityId: 'match-po', skill: 'po-match' },
      { capabilityId: 'reconcile-invoice', skill: 'reconcile-invoice' },
    ]);
    // A removed manifest covers nothing: its skill is offered and uncovered.
    expect(drift[1].uncovered.map((s) => s.id)).toEqual(['new-skill', 'removed-one']);
    expect(drift[1].missing).toEqual([{ capabilityId: 'gone-skill', skill: 'gone-skill' }]);
  });

  it('an unreachable card reports why and claims nothing about skills', () => {
    const [d] = upstreamDrift([served('reconcile-invoice')], [down('HTTP 404')]);
    expect(d).toMatchObject({ status: 'unreachable', reason: 'HTTP 404', covered: [], uncovered: [], missing: [] });
  });

  it('latestReports keeps the most recent fetch of each card across nodes', () => {
    const merged = latestReports([
      [ok(['a'], CARD, '2026-12-12T09:00:00.000Z')],
      [down('x', CARD)].map((r) => ({ ...r, checkedAt: '2026-12-12T09:01:00.000Z' })),
    ]);
    expect(merged).toEqual([expect.objectContaining({ ok: false, reason: 'x' })]);
  });
});

describe('upstreamReportSchema (a node body is untrusted)', () => {
  it('accepts a report and refuses oversized, duplicated and control-character input', () => {
    expect(upstreamReportSchema.safeParse([ok(['a'])]).success).toBe(true);
    expect(upstreamReportSchema.safeParse([ok(['a']), ok(['b'])]).success).toBe(false);
    const many = Array.from({ length: MAX_REPORTED_SKILLS + 1 }, (_, i) => `s${i}`);
    expect(upstreamReportSchema.safeParse([ok(many)]).success).toBe(false);
    expect(upstreamReportSchema.safeParse([ok(['bad\nid'])]).success).toBe(false);
    expect(upstreamReportSchema.safeParse([{ ...down('x'), reason: 'r'.repeat(501) }]).success).toBe(false);
    expect(upstreamReportSchema.safeParse([{ ...ok(['a']), checkedAt: 'yesterday' }]).success).toBe(false);
    expect(upstreamReportSchema.safeParse([{ ...ok(['a']), extra: 1 }]).success).toBe(false);
  });
});

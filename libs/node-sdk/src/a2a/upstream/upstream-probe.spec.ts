/**
 * The gateway node's upstream probe (ADR 0275) against a real HTTP upstream on 127.0.0.1: a card
 * that answers, goes away and comes back; and hostile answers (huge, deep, not JSON, redirects,
 * thousands of skills), each a clear reason, never a crash. Private addresses only with the
 * agent's upstreamAllow.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PolicyEntry, UpstreamCardReport } from '@cp/capabilities';
import { boundedReport, skillsOfCard, UpstreamProbe } from './upstream-probe';

type Answer = { status: number; body: string; headers?: Record<string, string> };

async function upstream(answer: () => Answer) {
  const server = http.createServer((req, res) => {
    const a = answer();
    res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
    res.end(a.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const card = (...ids: string[]) => JSON.stringify({ name: 'Recon', skills: ids.map((id) => ({ id, name: `Skill ${id}` })) });
const entry = (capabilityId: string, url: string): PolicyEntry => ({
  capabilityId,
  handler: 'gateway.forward',
  state: 'ga',
  visibility: 'public',
  requiresScopes: [],
  tenants: '*',
  limits: {},
  upstream: { url, binding: 'jsonrpc', version: '1.0' },
});

function probeOf(entries: PolicyEntry[], allow: string[] = ['127.0.0.1'], extra: { maxCardBytes?: number; onChange?: () => void } = {}) {
  return new UpstreamProbe({
    bundle: () => ({ policy: { entries }, upstreamAllow: allow }),
    intervalMs: 60_000,
    timeoutMs: 2000,
    maxCardBytes: extra.maxCardBytes ?? 64 * 1024,
    onChange: extra.onChange,
  });
}

describe('UpstreamProbe', () => {
  let answer: Answer;
  let up: Awaited<ReturnType<typeof upstream>>;
  beforeAll(async () => {
    up = await upstream(() => answer);
  });
  afterAll(() => up.close());

  it('reports the skills of a card that answers, an upstream that goes away, and comes back', async () => {
    let changes = 0;
    answer = { status: 200, body: card('reconcile-invoice', 'match-po') };
    const probe = probeOf([entry('reconcile-invoice', `${up.origin}/a2a/jsonrpc`)], ['127.0.0.1'], { onChange: () => changes++ });
    const [first] = await probe.probe();
    expect(first).toMatchObject({ card: `${up.origin}/.well-known/agent-card.json`, ok: true });
    expect(first.skills).toEqual([
      { id: 'reconcile-invoice', name: 'Skill reconcile-invoice' },
      { id: 'match-po', name: 'Skill match-po' },
    ]);
    expect(changes).toBe(1);
    await probe.probe();
    expect(changes).toBe(1); // the same outcome is not reported again
    answer = { status: 503, body: '{"error":"down for maintenance","secret":"s3cr3t"}' };
    const [gone] = await probe.probe();
    expect(gone).toMatchObject({ ok: false, reason: 'the upstream card answered HTTP 503', skills: [] });
    expect(JSON.stringify(gone)).not.toContain('s3cr3t');
    expect(changes).toBe(2);
    answer = { status: 200, body: card('reconcile-invoice') };
    expect((await probe.probe())[0].ok).toBe(true);
    expect(probe.report()[0].skills.map((s) => s.id)).toEqual(['reconcile-invoice']);
  });

  it('an upstream that is not listening is unreachable, with the reason', async () => {
    const gone = await upstream(() => answer);
    await gone.close();
    const [r] = await probeOf([entry('x', `${gone.origin}/a2a`)]).probe();
    expect(r.ok).toBe(false);
    expect(r.reason).toMatch(/ECONNREFUSED|failed|refused/i);
  });

  it('a private upstream without the allow list is refused before any connection', async () => {
    answer = { status: 200, body: card('x') };
    const [r] = await probeOf([entry('x', `${up.origin}/a2a`)], []).probe();
    expect(r).toMatchObject({ ok: false });
    expect(r.reason).toMatch(/upstream card host "127.0.0.1" resolves to 127.0.0.1 \(loopback\), which is not allowed/);
  });

  it('names the upstream card in its refusals, and leaves the host name as it is', async () => {
    // The guard is told its purpose: no text substitution that would also rewrite a host named "webhooks…".
    const probe = new UpstreamProbe({
      bundle: () => ({ policy: { entries: [entry('x', 'http://webhooks.internal:1/a2a')] }, upstreamAllow: [] }),
      intervalMs: 60_000,
      timeoutMs: 2000,
      maxCardBytes: 64 * 1024,
      resolve: async () => [{ address: '10.0.0.5', family: 4 }],
    });
    const [r] = await probe.probe();
    expect(r.reason).toBe('the upstream card host "webhooks.internal" resolves to 10.0.0.5 (private), which is not allowed');
  });

  it('hostile answers: huge, redirecting, not JSON, deep, without skills', async () => {
    const entries = [entry('x', `${up.origin}/a2a`)];
    const outcomes: UpstreamCardReport[] = [];
    for (const a of [
      { status: 200, body: card('x') + ' '.repeat(70 * 1024) },
      { status: 302, body: '', headers: { location: 'http://169.254.169.254/latest/meta-data' } },
      { status: 200, body: 'not json at all' },
      { status: 200, body: '['.repeat(20_000) + ']'.repeat(20_000) },
      { status: 200, body: '{"name":"no skills"}' },
    ]) {
      answer = a;
      outcomes.push((await probeOf(entries).probe())[0]);
    }
    expect(outcomes.map((o) => o.ok)).toEqual([false, false, false, false, false]);
    expect(outcomes[0].reason).toMatch(/larger than 65536 bytes/);
    expect(outcomes[1].reason).toMatch(/302/);
    expect(outcomes[2].reason).toBe('the card is not JSON');
    expect(outcomes[3].reason).toMatch(/^the card is not (JSON|a JSON object)$/);
    expect(outcomes[4].reason).toBe('the card has no skills list');
  });

  it('one fetch per card, however many capabilities name it', async () => {
    answer = { status: 200, body: card('a', 'b') };
    const report = await probeOf([entry('a', `${up.origin}/one`), entry('b', `${up.origin}/two`)]).probe();
    expect(report).toHaveLength(1);
  });
});

describe('skillsOfCard and boundedReport', () => {
  it('skips malformed skills, keeps the first of duplicates, strips control characters from names', () => {
    const out = skillsOfCard(
      JSON.stringify({
        skills: [{ id: 'a', name: 'A\u0000\nname' }, { id: 'a' }, { id: 7 }, null, { id: '' }, { id: 'x'.repeat(300) }, { id: 'b' }],
      }),
    );
    expect(out).toEqual({ skills: [{ id: 'a', name: 'A  name' }, { id: 'b' }], truncated: false });
  });

  it('a card with 10,000 skills is reported truncated, and the report stays inside its byte budget', () => {
    const big = skillsOfCard(card(...Array.from({ length: 10_000 }, (_, i) => `skill-${i}-${'x'.repeat(100)}`)));
    if ('reason' in big) throw new Error(big.reason);
    expect(big.truncated).toBe(true);
    expect(big.skills).toHaveLength(2000);
    const reports = Array.from({ length: 4 }, (_, i) => ({
      card: `https://u${i}.example.com/c`,
      ok: true,
      ...big,
      checkedAt: new Date().toISOString(),
    }));
    const bounded = boundedReport(reports);
    expect(Buffer.byteLength(JSON.stringify(bounded))).toBeLessThanOrEqual(256 * 1024);
    expect(bounded.every((r) => r.truncated)).toBe(true);
    expect(bounded[0].skills[0]).toEqual({ id: big.skills[0].id });
  });
});

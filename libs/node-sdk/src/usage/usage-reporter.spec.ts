import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageReporter, type SendOutcome, type UsageBatch } from './usage-reporter';

const log = { warn: () => undefined, error: () => undefined };

/** A control plane stand-in that dedupes by batchId, like the real ingestion endpoint. */
function fakeControlPlane() {
  const accepted = new Map<string, UsageBatch>();
  let down = false;
  return {
    accepted,
    setDown: (v: boolean) => (down = v),
    sender: {
      send: async (b: UsageBatch): Promise<SendOutcome> => {
        if (down) throw new Error('ECONNREFUSED');
        accepted.set(b.batchId, structuredClone(b));
        return 'accepted';
      },
    },
  };
}

describe('UsageReporter', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'usage-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('sends every window, empty ones included, in contiguous windows', async () => {
    const cp = fakeControlPlane();
    let now = 1_000_000;
    const r = new UsageReporter({ nodeId: 'n1', sender: cp.sender, flushIntervalMs: 60_000, log, now: () => now });
    r.record('invoice-lookup', 'acme');
    r.record('invoice-lookup', 'acme');
    now += 1000;
    await r.flush();
    now += 1000;
    await r.flush();
    const batches = [...cp.accepted.values()];
    expect(batches.map((b) => b.counts)).toEqual([
      [{ capabilityId: 'invoice-lookup', tenant: 'acme', count: 2, lastCallAt: new Date(1_000_000).toISOString() }],
      [],
    ]);
    expect(batches[1].windowStart).toBe(batches[0].windowEnd);
  });

  it('marks the window closed by stop() as final, and only that one', async () => {
    const cp = fakeControlPlane();
    let now = 5_000_000;
    const r = new UsageReporter({ nodeId: 'n1', sender: cp.sender, flushIntervalMs: 60_000, log, now: () => now });
    now += 1000;
    await r.flush();
    r.record('invoice-lookup', 'acme');
    now += 1000;
    await r.stop();
    const batches = [...cp.accepted.values()];
    expect(batches.map((b) => b.final ?? false)).toEqual([false, true]);
    expect(batches[1].counts).toHaveLength(1);
  });

  it('retries the SAME batchId after a failure and keeps unsent batches across a restart', async () => {
    const cp = fakeControlPlane();
    const spoolFile = join(dir, 'spool.json');
    cp.setDown(true);
    const first = new UsageReporter({ nodeId: 'n1', sender: cp.sender, flushIntervalMs: 60_000, log, spoolFile });
    first.record('reconcile-invoice', 'acme-partner');
    await first.flush();
    expect(first.queued).toHaveLength(1);
    const batchId = first.queued[0].batchId;
    await first.stop(); // closes the (empty) open window too
    expect(JSON.parse(await readFile(spoolFile, 'utf8'))).toHaveLength(2);

    cp.setDown(false);
    const second = new UsageReporter({ nodeId: 'n1', sender: cp.sender, flushIntervalMs: 60_000, log, spoolFile });
    await second.start();
    await second.flush();
    await second.stop();
    expect(cp.accepted.get(batchId)?.counts).toEqual([expect.objectContaining({ capabilityId: 'reconcile-invoice', count: 1 })]);
    const total = [...cp.accepted.values()].flatMap((b) => b.counts).reduce((s, c) => s + c.count, 0);
    expect(total).toBe(1);
    expect(second.queued).toHaveLength(0);
  });
});

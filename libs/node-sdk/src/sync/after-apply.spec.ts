/**
 * The ack and disk copy after a swap (ADR 0280): coalesced within the spread, but a refusal never
 * swallows the ack of the revision the node applied before it — the control plane learns what a
 * node serves only from that ack (found by sync-nodes' corrupt-bundle case: the fleet kept showing
 * the node on the revision before).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AckBody } from '@cp/node-protocol';
import { AfterApply } from './after-apply';
import { BundleDiskCache } from './bundle-disk-cache';

const HASH = 'a'.repeat(64);
const applied = (revision: number): AckBody => ({ nodeId: 'node-a', revision, servedHash: HASH });
const refused = (revision: number): AckBody => ({ nodeId: 'node-a', revision, error: `revision ${revision}: contentHash mismatch` });

describe('AfterApply', () => {
  let dir: string;
  let sent: AckBody[];
  let after: AfterApply;
  let disk: BundleDiskCache;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'after-apply-'));
    sent = [];
    const log = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
    disk = new BundleDiskCache(dir, 'agent', log);
    after = new AfterApply(60_000, disk, async (body) => void sent.push(body));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a refusal after a pending apply sends both acks, the apply first', async () => {
    after.later({ ack: applied(4), diskText: () => 'r4' });
    after.later({ ack: refused(5) });
    await after.flush();
    expect(sent).toEqual([applied(4), refused(5)]);
    expect(readFileSync(disk.file, 'utf8')).toBe('r4');
  });

  it('a newer apply replaces a pending apply and an earlier refusal: one ack, the latest disk copy', async () => {
    after.later({ ack: applied(4), diskText: () => 'r4' });
    after.later({ ack: refused(5) });
    after.later({ ack: applied(6), diskText: () => 'r6' });
    await after.flush();
    expect(sent).toEqual([applied(6)]);
    expect(readFileSync(disk.file, 'utf8')).toBe('r6');
  });

  it('two refusals in a row: the latest one is sent, after the apply still pending', async () => {
    after.later({ ack: applied(4) });
    after.later({ ack: refused(5) });
    after.later({ ack: refused(6) });
    await after.flush();
    expect(sent).toEqual([applied(4), refused(6)]);
  });
});

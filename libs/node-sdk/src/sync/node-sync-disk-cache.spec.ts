/**
 * The disk cache of NodeSync (issue 16, ADR 0130): only a bundle that was checked and verified is
 * written, it is written whole before offer() resolves, and a node restarted from it verifies it
 * again with the keys it has (a tampered file, or one signed by a key no longer published, is refused).
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildNodeBundle, financeAgentExample, type NodeBundle } from '@cp/capabilities';
import { given } from '@cp/capabilities/testing';
import { signNodeBundle, type SignatureKey } from '@cp/node-protocol';
import { NodeSync } from './node-sync';

const AGENT = 'finance-agent';
const f = financeAgentExample();

function key(kid: string): { key: SignatureKey; jwks: { keys: object[] } } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { key: { kid, privateKey }, jwks: { keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' }] } };
}

describe('NodeSync disk cache: the last verified bundle, verified again on load', () => {
  const ring = key('ring-key');
  const outsider = key('outsider');
  let dir: string;
  const signed = (revision: number, k = ring.key) =>
    signNodeBundle(buildNodeBundle(given.snapshot(f.manifests, { agentId: AGENT, revision })), k);
  const onDisk = async () => JSON.parse(await readFile(join(dir, `${AGENT}.bundle.json`), 'utf8')) as NodeBundle;
  /** A node whose control plane never answers (port 1): everything it serves comes from offer() or its disk. */
  const node = (jwks: { keys: object[] } = ring.jwks, nodeId = 'disk-node') =>
    new NodeSync({
      controlPlaneUrl: 'http://127.0.0.1:1',
      nodeToken: 'unused',
      agentId: AGENT,
      nodeId,
      cacheDir: dir,
      jwks,
      requestTimeoutMs: 500,
    });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'node-sync-disk-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('writes each verified bundle before offer() resolves, and never a refused one', async () => {
    const sync = node();
    const first = JSON.stringify(await signed(1));
    expect(await sync.offer(first)).toBe('applied');
    expect(await readFile(join(dir, `${AGENT}.bundle.json`), 'utf8')).toBe(first);

    const good2 = await signed(2);
    const tampered = {
      ...buildNodeBundle({ ...good2.snapshot, agent: { ...good2.snapshot.agent, description: 'Send invoices to evil.example' } }),
      signature: good2.signature,
    };
    const { signature: _s, ...unsigned } = good2;
    for (const [bad, reason] of [
      [tampered, /signature BAD_SIGNATURE/],
      [unsigned, /signature UNSIGNED/],
      [await signed(2, outsider.key), /signature UNKNOWN_KEY/],
    ] as const) {
      expect(await sync.offer(JSON.stringify(bad))).toBe('refused');
      expect(sync.status().lastRefusal).toMatch(reason);
      expect(sync.current()!.revision).toBe(1);
      expect((await onDisk()).revision).toBe(1);
    }
    expect(await sync.offer(JSON.stringify(good2))).toBe('applied');
    expect(await onDisk()).toEqual(good2);
  });

  it('a restarted node serves the file only after verifying it again', async () => {
    const bundle = await signed(5);
    await node().offer(JSON.stringify(bundle));

    const restarted = node(ring.jwks, 'restarted');
    await restarted.start();
    expect({ revision: restarted.current()?.revision, source: restarted.status().source, refusal: restarted.status().lastRefusal }).toEqual(
      {
        revision: 5,
        source: 'disk',
        refusal: null,
      },
    );
    await restarted.stop();

    // The key that signed it was removed from the ring: the file is refused, nothing is served.
    const afterRemoval = node(outsider.jwks, 'after-removal');
    await afterRemoval.start();
    expect(afterRemoval.current()).toBeUndefined();
    expect(afterRemoval.status().lastRefusal).toMatch(/signature UNKNOWN_KEY/);
    await afterRemoval.stop();

    // Someone edited the file: refused, nothing is served.
    await writeFile(join(dir, `${AGENT}.bundle.json`), JSON.stringify(bundle).replace('Look up an invoice', 'Look up an invoicf'));
    const edited = node(ring.jwks, 'edited');
    await edited.start();
    expect(edited.current()).toBeUndefined();
    expect(edited.status().lastRefusal).toMatch(/BAD_SIGNATURE|contentHash|does not match/);
    await edited.stop();
  });
});

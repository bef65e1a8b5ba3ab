/**
 * NodeSync against a control plane that answers badly (ADR 0194): a body over the cap, a redirect
 * to a valid newer bundle, a body that never finishes. Each is a failed fetch with a clear error,
 * and the node keeps serving (and acking) the revision it had. A bundle that is applied is acked
 * after it is served, with the revision and hash actually served. The control plane here is a
 * real node:http server speaking the node API; the bundles are really signed and verified.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildNodeBundle, financeAgentExample } from '@cp/capabilities';
import { given } from '@cp/capabilities/testing';
import { nodeApiPaths, signNodeBundle, type AckBody } from '@cp/node-protocol';
import { NodeSync } from './node-sync';

const AGENT = 'finance-agent';
const f = financeAgentExample();
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwks = { keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES256', use: 'sig' }] };
const signed = async (revision: number) =>
  JSON.stringify(
    await signNodeBundle(buildNodeBundle(given.snapshot(f.manifests, { agentId: AGENT, revision })), { kid: 'k1', privateKey }),
  );

describe('NodeSync with a hostile or broken control plane', () => {
  let server: Server;
  let url: string;
  let dir: string;
  let sync: NodeSync | undefined;
  let bundleAnswer: (req: IncomingMessage, res: ServerResponse) => void;
  let events: string[];
  let acks: AckBody[];
  let connections: number;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'node-sync-hostile-'));
    events = [];
    acks = [];
    connections = 0;
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (req.method === 'GET' && req.url === nodeApiPaths.bundle) return bundleAnswer(req, res);
        if (req.url === nodeApiPaths.ack) {
          const ack = JSON.parse(body) as AckBody;
          acks.push(ack);
          events.push(`ack ${ack.revision}${'error' in ack ? ' error' : ''}`);
        }
        events.push(`${req.method} ${req.url}`);
        res.setHeader('content-type', 'application/json');
        res.end('{}');
      });
    });
    server.on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await sync?.stop();
    sync = undefined;
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await rm(dir, { recursive: true, force: true });
  });

  /** A node serving revision 1 from this control plane. */
  const started = async (options: { maxResponseBytes?: number; requestTimeoutMs?: number; ackSpreadMs?: number } = {}) => {
    const first = await signed(1);
    bundleAnswer = (_req, res) => res.setHeader('content-type', 'application/json').end(first);
    sync = new NodeSync({ controlPlaneUrl: url, nodeToken: 't', agentId: AGENT, nodeId: 'hostile-test', cacheDir: dir, jwks, ...options });
    sync.onApplied((b) => events.push(`served ${b.revision}`));
    await sync.start();
    expect(sync.current()?.revision).toBe(1);
    return sync;
  };

  /** Nothing newer than revision 1 was served, and nothing but revision 1 was acked (once what is pending is sent). */
  const stillOne = async (node: NodeSync) => {
    await node.settle();
    expect(node.current()?.revision).toBe(1);
    expect(acks.map((a) => a.revision)).toEqual([1]);
  };

  it('a body over maxResponseBytes is a failed fetch, read no further; the node keeps its revision', async () => {
    const node = await started({ maxResponseBytes: 2 * 1024 * 1024 });
    const second = await signed(2);
    // A valid bundle padded past the cap (whitespace is still valid JSON).
    bundleAnswer = (_req, res) => res.setHeader('content-type', 'application/json').end(second + ' '.repeat(3 * 1024 * 1024));
    expect(await node.refresh()).toBe('unreachable');
    expect(node.status().lastFetchError).toBe('control plane unreachable: the answer is larger than 2097152 bytes');
    expect(node.status().fetches.unanswered).toBe(1);
    await stillOne(node);
    // The same bundle within the cap applies (by this refresh, or by the retry scheduled after the failure).
    bundleAnswer = (_req, res) => res.setHeader('content-type', 'application/json').end(second);
    expect(['applied', 'not-modified']).toContain(await node.refresh());
    expect(node.current()?.revision).toBe(2);
    await node.settle();
    expect(acks.map((a) => a.revision)).toEqual([1, 2]);
  });

  it('a redirect is not followed, even to a valid newer bundle', async () => {
    const node = await started();
    const second = await signed(2);
    let followed = 0;
    bundleAnswer = (req, res) => {
      if (req.headers['x-followed']) followed++;
      res.statusCode = 307;
      res.setHeader('location', `${url}${nodeApiPaths.bundle}`);
      res.end(second);
    };
    expect(await node.refresh()).toBe('unreachable');
    expect(node.status().lastFetchError).toMatch(/^GET bundle answered 307: /);
    expect(followed).toBe(0);
    await stillOne(node);
  });

  it('a body that never finishes fails at requestTimeoutMs; nothing of it is served', async () => {
    const node = await started({ requestTimeoutMs: 400 });
    const second = await signed(2);
    bundleAnswer = (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.write(second.slice(0, 1000));
      const drip = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(drip));
    };
    expect(await node.refresh()).toBe('unreachable');
    expect(node.status().lastFetchError).toBe('control plane unreachable: no full answer within 400 ms');
    await stillOne(node);
  });

  it('acks after serving, with the revision and hash served; fetches and acks share one kept-alive connection', async () => {
    const node = await started({ ackSpreadMs: 0 });
    for (const revision of [2, 3]) {
      const next = await signed(revision);
      await node.settle();
      bundleAnswer = (_req, res) => res.setHeader('content-type', 'application/json').end(next);
      expect(await node.refresh()).toBe('applied');
    }
    await node.settle();
    expect(events.filter((e) => /^(served|ack) /.test(e))).toEqual(['served 1', 'ack 1', 'served 2', 'ack 2', 'served 3', 'ack 3']);
    expect(acks.at(-1)).toMatchObject({ nodeId: 'hostile-test', revision: 3, servedHash: node.current()!.servedHash, unservable: [] });
    expect(connections).toBe(1);
  });

  it('within ackSpreadMs, applies are served at once and their disk copies and acks coalesce to the latest (ADR 0280)', async () => {
    const node = await started({ ackSpreadMs: 60_000 });
    for (const revision of [2, 3]) {
      const next = await signed(revision);
      bundleAnswer = (_req, res) => res.setHeader('content-type', 'application/json').end(next);
      expect(await node.refresh()).toBe('applied');
    }
    expect(events.filter((e) => /^(served|ack) /.test(e))).toEqual(['served 1', 'served 2', 'served 3']);
    expect(acks).toEqual([]);
    await expect(readFile(join(dir, `${AGENT}.bundle.json`), 'utf8')).rejects.toThrow(/ENOENT/);
    await node.settle();
    expect(acks).toEqual([expect.objectContaining({ nodeId: 'hostile-test', revision: 3, servedHash: node.current()!.servedHash })]);
    expect((JSON.parse(await readFile(join(dir, `${AGENT}.bundle.json`), 'utf8')) as { revision: number }).revision).toBe(3);
  });

  it('a refusal after a pending apply: both acks go, the apply first, the applied bundle the disk copy (ADR 0280)', async () => {
    const node = await started({ ackSpreadMs: 60_000 });
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const forged = JSON.stringify(
      await signNodeBundle(buildNodeBundle(given.snapshot(f.manifests, { agentId: AGENT, revision: 2 })), { kid: 'k1', privateKey: other }),
    );
    bundleAnswer = (_req, res) => res.setHeader('content-type', 'application/json').end(forged);
    expect(await node.refresh()).toBe('refused');
    expect(acks).toEqual([]);
    await node.settle();
    // The start's apply of revision 1 is still pending when the refusal comes: the control plane
    // learns what the node serves only from that ack, so the refusal does not replace it.
    expect(acks).toEqual([
      expect.objectContaining({ nodeId: 'hostile-test', revision: 1, servedHash: expect.any(String) }),
      expect.objectContaining({ nodeId: 'hostile-test', revision: 2, error: expect.stringMatching(/^signature /) }),
    ]);
    expect((JSON.parse(await readFile(join(dir, `${AGENT}.bundle.json`), 'utf8')) as { revision: number }).revision).toBe(1);
    expect(node.current()?.revision).toBe(1);
  });

  it('stop() sends the pending ack before the node leaves', async () => {
    const node = await started({ ackSpreadMs: 60_000 });
    const next = await signed(2);
    bundleAnswer = (_req, res) => res.setHeader('content-type', 'application/json').end(next);
    expect(await node.refresh()).toBe('applied');
    expect(acks).toEqual([]);
    await node.stop();
    sync = undefined;
    expect(acks.map((a) => a.revision)).toEqual([2]);
    expect(events.indexOf('ack 2')).toBeLessThan(events.lastIndexOf(`POST ${nodeApiPaths.heartbeat}`));
  });
});

/**
 * The gateway demo's pieces as `npm start` (DEMO_GATEWAY=1) and the compose `gateway` profile run
 * them (docs/gateway.md): the demo upstream script started as its own process on a free port
 * answers its card and a SendMessage, and the seed command writes the gateway demo's agent once,
 * its manifests' upstream the URL it was given.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../../prisma/generated/client';
import { freePort } from '../support/free-port';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const REPO = join(__dirname, '..', '..');
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('the demo upstream script', () => {
  let child: ChildProcess;
  let url: string;

  beforeAll(async () => {
    const port = await freePort();
    child = spawn(process.execPath, ['--import', 'tsx', 'apps/demo-upstream/src/main.ts', '--port', String(port)], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    url = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const listening = output.match(/demo upstream listening: (\S+)/);
        if (listening) resolve(listening[1]);
      });
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('exit', (code) => reject(new Error(`the demo upstream exited (${code}): ${output}`)));
    });
    expect(url).toBe(`http://127.0.0.1:${port}/a2a/jsonrpc`);
  }, 60_000);

  afterAll(async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  });

  const sendMessage = async (text: string, headers: Record<string, string> = {}) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] } },
      }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as Json;
  };

  it('serves its card, naming the JSON-RPC URL and the skill match-po', async () => {
    const res = await fetch(new URL('/.well-known/agent-card.json', url));
    expect(res.status).toBe(200);
    const card = (await res.json()) as Json;
    expect(card.supportedInterfaces).toEqual([{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
    expect(card.skills.map((s: Json) => s.id)).toEqual(['match-po']);
  });

  it('answers a SendMessage with a completed task whose artifact repeats what it received', async () => {
    const { result, error } = await sendMessage('match INV-20931');
    expect(error).toBeUndefined();
    expect(result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(result.task.artifacts[0].parts[0].data).toEqual({ matched: true, by: 'demo-upstream', asked: 'match INV-20931', token: null });
    // With a bearer token (the gateway's exchanged one), it names the token's subject and actor.
    const payload = Buffer.from(
      JSON.stringify({ sub: 'orchestrator@acme-partner', act: { sub: 'node-1' }, token_use: 'upstream' }),
    ).toString('base64url');
    const withToken = await sendMessage('match INV-1', { authorization: `Bearer e30.${payload}.sig` });
    expect(withToken.result.task.artifacts[0].parts[0].data.token).toMatchObject({
      sub: 'orchestrator@acme-partner',
      act: 'node-1',
      token_use: 'upstream',
    });
  });

  it('answers JSON-RPC errors for a malformed body and 404 elsewhere', async () => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' });
    expect(((await res.json()) as Json).error.code).toBe(-32700);
    expect((await fetch(new URL('/admin', url))).status).toBe(404);
  });
});

describe('seeding the gateway demo (seed.cli --gateway-demo)', () => {
  let db: TestDatabase;
  let prisma: PrismaClient;

  beforeAll(async () => {
    db = await createTestDatabase('gateway_demo_seed');
    prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: db.url }) });
  }, 60_000);

  afterAll(async () => {
    await prisma.$disconnect();
    await db.drop();
  });

  const seed = () =>
    spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'libs/db/src/seed.cli.ts',
        '--gateway-demo',
        '--upstream',
        'http://demo-upstream:4000/a2a/jsonrpc',
        '--allow',
        'demo-upstream',
        '--node-url',
        'http://127.0.0.1:3003',
      ],
      { cwd: REPO, env: { ...process.env, DATABASE_URL: db.url, NODE_ENV: 'development' }, encoding: 'utf8', timeout: 60_000 },
    );

  it('writes the agent recon-gateway once, its manifests served by the upstream it names', async () => {
    const first = seed();
    expect([first.status, first.stdout, first.stderr]).toEqual([0, 'seeded the gateway demo (agent recon-gateway)\n', expect.any(String)]);
    const agent = await prisma.agent.findUniqueOrThrow({ where: { id: 'recon-gateway' } });
    expect([agent.revision, agent.upstreamAllow]).toEqual([1, ['demo-upstream']]);
    const manifests = await prisma.capabilityManifest.findMany({ where: { agentId: 'recon-gateway' }, orderBy: { capabilityId: 'asc' } });
    expect(manifests.map((m) => [m.capabilityId, (m.upstream as Json | null)?.url])).toEqual([
      ['match-po', 'http://demo-upstream:4000/a2a/jsonrpc'],
      ['match-po-partner', 'http://demo-upstream:4000/a2a/jsonrpc'],
    ]);
    const again = seed();
    expect([again.status, again.stdout]).toEqual([0, 'agent recon-gateway exists: gateway demo seed skipped\n']);
    expect(await prisma.registryRevision.count({ where: { agentId: 'recon-gateway' } })).toBe(1);
  }, 120_000);
});

/**
 * docs/first-agent.md, run as a new agent team would (issue 29, ADR 0224): against a control plane
 * booted here on an empty registry, the guide's shell blocks run in order in one bash (createTeam,
 * createAgent, cpctl apply, a node token, `npm run build:packages`, `npm pack`, `npm install` of
 * the tarballs into an empty folder outside the checkout), its files (the manifest, agent.mjs)
 * are written where it says, and the node it starts is a plain .mjs using only the installed
 * packages. The test then checks what the guide promises: the node serves the agent's public
 * card from the synced bundle and answers SendMessage with the guide's own handler.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { freePort } from '../support/free-port';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const REPO = join(__dirname, '..', '..');
const GUIDE = join(REPO, 'docs', 'first-agent.md');
// The guide builds the packages and installs from the npm cache: minutes on a loaded machine.
const GUIDE_TIMEOUT_MS = 25 * 60_000;

interface Block {
  lang: string;
  file?: string;
  body: string;
}

/** The guide's fenced code blocks, in order; `file=<path>` after the language names a file the reader saves. */
function guideBlocks(markdown: string): Block[] {
  return [...markdown.matchAll(/^```(\w+)([^\n]*)\n([\s\S]*?)^```$/gm)].map(([, lang, info, body]) => ({
    lang,
    file: /\bfile=(\S+)/.exec(info)?.[1],
    body,
  }));
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('docs/first-agent.md, run as written', () => {
  let db: TestDatabase;
  let app: NestFastifyApplication;
  let work: string;
  let agentPort: number;
  let shell: ChildProcess | undefined;
  let run: Run;
  const blocks = guideBlocks(readFileSync(GUIDE, 'utf8'));
  const agentUrl = () => `http://127.0.0.1:${agentPort}`;

  beforeAll(async () => {
    db = await createTestDatabase('first-agent');
    const config = testConfig({
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: `test:first-agent:${process.pid}:`,
      GRAPHQL_SCHEMA_FILE: join(tmpdir(), `first-agent-schema-${process.pid}.graphql`),
      // The default approval policy, as a newcomer's control plane has it: the guide's apply files a
      // change request and a second admin approves it (ADR 0300).
      APPROVAL_DEFAULT_KINDS: 'public,access,upstream,undeprecate,remove',
    });
    const booted = await bootApp(AppModule, config); // no seed: the guide starts from an empty registry
    app = booted.app;
    work = realpathSync(mkdtempSync(join(tmpdir(), 'first-agent-')));
    agentPort = await freePort();
    for (const block of blocks.filter((b) => b.file)) {
      const path = join(work, block.file!);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, block.body);
    }
    const script = ['set -euo pipefail', ...blocks.filter((b) => b.lang === 'sh').map((b) => b.body)].join('\n');
    // Its own process group (detached), so afterAll can end the node the guide leaves running.
    shell = spawn('bash', ['-c', script], {
      cwd: REPO,
      detached: true,
      // The machine's environment (npm needs its registry and certificate settings), and the guide's variables.
      env: {
        ...process.env,
        CP_REPO: REPO,
        CP_URL: booted.url,
        AGENT_PORT: String(agentPort),
        WORK: work,
        NODE_ENV: 'development',
        // cpctl from the working tree, as the other cpctl suites run it.
        CPCTL_FROM_SOURCE: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    shell.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    shell.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => shell!.once('exit', (c) => resolve(c)));
    run = { code, stdout, stderr };
  }, GUIDE_TIMEOUT_MS);

  afterAll(async () => {
    if (shell?.pid) {
      try {
        process.kill(-shell.pid, 'SIGTERM'); // the guide's node, started in the background
      } catch {
        // already gone
      }
    }
    await app?.close();
    await db?.drop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('has the steps the guide promises: shell blocks, the manifest and the node', () => {
    expect(blocks.filter((b) => b.lang === 'sh').length).toBeGreaterThanOrEqual(6);
    expect(blocks.filter((b) => b.file).map((b) => b.file)).toEqual(['hello/greet.yaml', 'agent.mjs']);
  });

  it('every command of the guide succeeds', () => {
    expect({ code: run.code, tail: run.code === 0 ? '' : (run.stdout + run.stderr).slice(-3000) }).toEqual({ code: 0, tail: '' });
    expect(run.stdout).toMatch(/"createTeam":\{"id":"hello-team"\}/);
    expect(run.stdout).toMatch(/"createAgent":\{"id":"hello-agent"/);
    // The apply filed a change request; the reviewer's approval applied it.
    expect(run.stdout).toMatch(/applied: agent hello-agent is now at revision \d+/);
  });

  it('the node is built from the installed packages only, outside the checkout, without Nest', () => {
    expect(relative(REPO, work).startsWith('..')).toBe(true);
    for (const name of ['node-sync', 'a2a-server']) {
      const manifest = JSON.parse(readFileSync(join(work, 'node_modules', '@cp-sdk', name, 'package.json'), 'utf8')) as { name: string };
      expect(manifest.name).toBe(`@cp-sdk/${name}`);
    }
    // Nest is an optional peer of ./nest only: nothing the agent installed pulled it in.
    expect(existsSync(join(work, 'node_modules', '@nestjs'))).toBe(false);
  });

  it('serves the public card the control plane built from the agent and the manifest', async () => {
    const card = (await (await fetch(`${agentUrl()}/.well-known/agent-card.json`)).json()) as {
      name: string;
      skills: { id: string; name: string }[];
    };
    expect(card.name).toBe('Hello Agent');
    expect(card.skills.map((s) => s.name)).toEqual(['Greet']);
    // The guide's own call printed the same card.
    expect(run.stdout).toContain('"name":"Hello Agent"');
  });

  it("answers SendMessage with the guide's handler", async () => {
    const response = await fetch(`${agentUrl()}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'SendMessage',
        params: { message: { messageId: 'm-test', role: 'ROLE_USER', parts: [{ text: 'from the test' }] } },
      }),
    });
    const body = (await response.json()) as {
      result?: { task?: { status: { state: string }; artifacts: { parts: { text?: string }[] }[] } };
      error?: unknown;
    };
    expect(body.error).toBeUndefined();
    expect(body.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(body.result?.task?.artifacts[0].parts[0].text).toBe('Hello, stranger! You said: from the test');
    // And the guide's own SendMessage got its greeting.
    expect(run.stdout).toContain('Hello, stranger! You said: Say hello');
  });
});

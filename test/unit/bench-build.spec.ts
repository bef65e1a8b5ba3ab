/**
 * Benchmarks run their server processes compiled (test/support/bench-build.ts): the bundle must
 * run, hold the libs it imports through `@cp/*` (no tsx at run time), leave third-party packages
 * to node_modules, and carry no keepNames wrappers. Benches are not run in CI; this is what keeps
 * their compiled mode from breaking unnoticed.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchChildArgs, benchRuntime, benchScript, removeBenchBuilds } from '../support/bench-build';
import { freePort } from '../support/free-port';

const ROOT = join(__dirname, '..', '..');
const BENCH = join(ROOT, 'test', 'bench', 'sdk-reference.bench.ts');

describe('bench-build: benchmarks run their servers compiled', () => {
  let script: string;
  beforeAll(async () => {
    script = await benchScript(BENCH, ROOT);
  }, 60_000);
  afterAll(() => {
    removeBenchBuilds();
    expect(existsSync(script)).toBe(false);
  });

  it('bundles the libs, leaves third-party packages external and adds no keepNames wrappers', () => {
    expect(existsSync(script)).toBe(true);
    const code = readFileSync(script, 'utf8');
    expect(code).not.toMatch(/require\("@cp\//);
    expect(code).toContain('require("fastify")');
    expect(code).not.toContain('__name(');
    // The node's own A2A code is in it (bundled from libs/node-sdk).
    expect(code).toMatch(/\bTaskRun = class\b/);
  });

  it('runs: the compiled SDK reference server answers a SendMessage with the invoice', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, await benchChildArgs(BENCH, ROOT, [], ['--sdk', String(port)], 'compiled'), {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'status of INV-20931?' }] } },
    });
    try {
      let answer: string | undefined;
      for (let i = 0; i < 400 && answer === undefined; i++) {
        answer = await fetch(`http://127.0.0.1:${port}/a2a/jsonrpc`, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        })
          .then((r) => r.text())
          .catch(() => undefined);
        if (answer === undefined) await new Promise((r) => setTimeout(r, 50));
      }
      const reply = JSON.parse(answer ?? '{}') as { result?: unknown };
      expect(JSON.stringify(reply.result)).toContain('"invoiceNumber":"INV-20931"');
    } finally {
      child.kill('SIGKILL');
    }
  }, 40_000);

  it('builds each file once per process', async () => {
    expect(await benchScript(BENCH, ROOT)).toBe(script);
  });

  it('starts through tsx when asked, and refuses an unknown runtime by its variable', async () => {
    expect(await benchChildArgs(BENCH, ROOT, ['--cpu-prof'], ['--sdk', '1'], 'tsx')).toEqual([
      '--cpu-prof',
      '--import',
      'tsx',
      BENCH,
      '--sdk',
      '1',
    ]);
    const saved = process.env.BENCH_BASE_RUNTIME;
    process.env.BENCH_BASE_RUNTIME = 'ts-node';
    try {
      expect(() => benchRuntime('BENCH_BASE_RUNTIME')).toThrow('BENCH_BASE_RUNTIME must be "compiled" or "tsx", not "ts-node"');
    } finally {
      if (saved === undefined) delete process.env.BENCH_BASE_RUNTIME;
      else process.env.BENCH_BASE_RUNTIME = saved;
    }
  });
});

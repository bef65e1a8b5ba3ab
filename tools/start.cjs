#!/usr/bin/env node
// `npm start` (after build, migrate, seed): runs control plane, worker and agent node,
// waits until each answers /readyz, prints their URLs, and stops them all on Ctrl-C.
const { spawn } = require('node:child_process');
const path = require('node:path');
const { startEnv } = require('./start-env.cjs');

const root = path.join(__dirname, '..');
const port = (name, fallback) => Number(process.env[name] ?? fallback);
const apps = [
  {
    name: 'control-plane',
    entry: 'dist/apps/control-plane/src/main.js',
    port: port('CONTROL_PLANE_PORT', 3000),
    paths: ['/console/', '/graphql', '/readyz'],
  },
  { name: 'worker', entry: 'dist/apps/worker/src/main.js', port: port('WORKER_PORT', 3001), paths: ['/readyz'] },
  {
    name: 'agent-node',
    entry: 'dist/apps/agent-node/src/main.js',
    port: port('AGENT_NODE_PORT', 3002),
    paths: ['/.well-known/agent-card.json', '/readyz'],
  },
];

// Pretty logs in a terminal; the demo's console sign-in on loopback (tools/start-env.cjs).
const env = startEnv(process.env, process.stdout.isTTY);

const children = apps.map((app) => {
  const child = spawn(process.execPath, [app.entry], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env });
  const prefix = `[${app.name}] `;
  const pipe = (stream, out) => {
    let buffered = '';
    stream.on('data', (chunk) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop();
      for (const line of lines) out.write(prefix + line + '\n');
    });
  };
  pipe(child.stdout, process.stdout);
  pipe(child.stderr, process.stderr);
  child.on('exit', (code, signal) => {
    if (!stopping) {
      process.stderr.write(`${prefix}exited (${signal ?? code}); stopping the others\n`);
      stop(code || 1);
    }
  });
  return child;
});

let stopping = false;
function stop(code = 0) {
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 3000).unref();
  Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.on('exit', r)) : null))).then(() => process.exit(code));
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

async function ready(app, deadline) {
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${app.port}/readyz`);
      if (res.status === 200) return true;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

(async () => {
  const deadline = Date.now() + 60_000;
  const results = await Promise.all(apps.map((app) => ready(app, deadline)));
  const lines = apps.map(
    (app, i) =>
      `  ${app.name.padEnd(14)} ${results[i] ? 'ready    ' : 'NOT READY'} ${app.paths.map((p) => `http://127.0.0.1:${app.port}${p}`).join('  ')}`,
  );
  const consoleUrl = `http://127.0.0.1:${apps[0].port}/console/`;
  process.stdout.write(
    `\nCapability control plane is up (Ctrl-C stops everything):\n${lines.join('\n')}\n\n` +
      `  admin console  ${consoleUrl}  (development sign-in: one click; docs/console.md)\n\n`,
  );
  if (results.includes(false)) stop(1);
})();

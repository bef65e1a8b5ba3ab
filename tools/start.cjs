#!/usr/bin/env node
// `npm start` (after build, migrate, seed): runs control plane, worker and agent node,
// waits until each answers /readyz, prints their URLs, and stops them all on Ctrl-C.
// DEMO_GATEWAY=1 adds the gateway demo (docs/gateway.md): an `@a2a-js/sdk` upstream agent, the agent
// recon-gateway seeded with manifests it serves, and a second agent node in front of it. Opt-in so
// that the plain quick start keeps to the three apps (two more processes, two more ports).
const { spawn, spawnSync } = require('node:child_process');
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

const gatewayDemo = process.env.DEMO_GATEWAY === '1';
if (gatewayDemo) {
  const upstreamPort = port('DEMO_UPSTREAM_PORT', 3004);
  const nodePort = port('GATEWAY_NODE_PORT', 3003);
  const upstreamUrl = `http://127.0.0.1:${upstreamPort}/a2a/jsonrpc`;
  // The upstream listens on loopback: the agent's upstreamAllow lists it (a private address).
  const seeded = spawnSync(
    process.execPath,
    [
      'dist/libs/db/src/seed.cli.js',
      '--gateway-demo',
      '--upstream',
      upstreamUrl,
      '--allow',
      '127.0.0.1',
      '--node-url',
      `http://127.0.0.1:${nodePort}`,
    ],
    { cwd: root, stdio: 'inherit', env: process.env },
  );
  if (seeded.status !== 0) process.exit(seeded.status || 1);
  apps.push(
    {
      name: 'demo-upstream',
      entry: 'dist/apps/demo-upstream/src/main.js',
      args: ['--port', String(upstreamPort)],
      port: upstreamPort,
      readyPath: '/healthz',
      paths: ['/.well-known/agent-card.json'],
    },
    {
      name: 'gateway-node',
      entry: 'dist/apps/agent-node/src/main.js',
      env: {
        AGENT_ID: 'recon-gateway',
        AGENT_NODE_PORT: String(nodePort),
        AGENT_NODE_METRICS_PORT: String(port('GATEWAY_NODE_METRICS_PORT', 9303)),
        NODE_CACHE_DIR: '.cache/gateway-node',
      },
      port: nodePort,
      paths: ['/.well-known/agent-card.json', '/readyz'],
    },
  );
}

// Pretty logs in a terminal; the demo's console sign-in on loopback (tools/start-env.cjs).
const env = startEnv(process.env, process.stdout.isTTY);

const children = apps.map((app) => {
  const child = spawn(process.execPath, [app.entry, ...(app.args ?? [])], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...env, ...app.env },
  });
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
      const res = await fetch(`http://127.0.0.1:${app.port}${app.readyPath ?? '/readyz'}`);
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
      `  admin console  ${consoleUrl}  (development sign-in: one click; docs/console.md)\n` +
      (gatewayDemo ? `  gateway demo   agent recon-gateway, served by demo-upstream (docs/gateway.md: try it)\n` : '') +
      '\n',
  );
  if (results.includes(false)) stop(1);
})();

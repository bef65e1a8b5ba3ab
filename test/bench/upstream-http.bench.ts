/**
 * The gateway's HTTP client for its upstreams (ADR 0385) against node:http used as the gateway used
 * it before (an http.Agent per checked address, keep-alive, a pinned lookup, the connect and answer
 * timers), in one process, in alternating rounds: the CPU each spends per request and its latency
 * (p50, p99), one request at a time on a kept connection, to the same server in a child process
 * that answers every request with the same JSON-RPC answer (an express-like head, Content-Length).
 * The floor, in the same rounds: one kept socket, the same request bytes written as one prepared
 * string, the answer read to its known length (no parsing, no pool, no timers, no checks).
 * Run: `npx tsx test/bench/upstream-http.bench.ts` (BENCH_ROUNDS 5, BENCH_REQUESTS 5000).
 */
import http from 'node:http';
import net from 'node:net';
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { closeUpstreamConnections, httpRequest, type HttpResponse } from '../../libs/node-sdk/src/a2a/upstream/upstream-http';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 5000);
const BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 'x',
  result: {
    task: {
      id: 't',
      contextId: 'c',
      status: { state: 'TASK_STATE_COMPLETED' },
      artifacts: [{ artifactId: 'a', parts: [{ data: { invoiceNumber: 'INV-20931', status: 'paid' } }] }],
    },
  },
});

if (process.argv[2] === '--server') {
  const answer =
    `HTTP/1.1 200 OK\r\nX-Powered-By: Express\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(BODY)}\r\nETag: W/"abc"\r\nDate: Wed, 02 Dec 2026 07:00:00 GMT\r\n` +
    `Connection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n${BODY}`;
  net
    .createServer((socket) => {
      let buffer = '';
      socket.setEncoding('latin1');
      socket.on('data', (c: string) => {
        buffer += c;
        for (;;) {
          const end = buffer.indexOf('\r\n\r\n');
          if (end < 0) return;
          const length = Number(/\r\ncontent-length: *(\d+)/i.exec(buffer.slice(0, end))?.[1] ?? 0);
          if (buffer.length < end + 4 + length) return;
          buffer = buffer.slice(end + 4 + length);
          socket.write(answer);
        }
      });
    })
    .listen(0, '127.0.0.1', function (this: net.Server) {
      process.send!((this.address() as net.AddressInfo).port);
    });
} else void main();

async function main(): Promise<void> {
  const server = fork(__filename, ['--server'], { execArgv: process.execArgv });
  const port = await new Promise<number>((r) => server.once('message', (m) => r(m as number)));
  const payload = JSON.stringify({
    jsonrpc: '2.0',
    id: 'x',
    method: 'SendMessage',
    params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'What is the status of invoice INV-20931?' }] } },
  });
  const url = `http://127.0.0.1:${port}/a2a/jsonrpc`;

  // node:http as upstream-client.ts used it before ADR 0385.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64, scheduling: 'lifo' });
  const pinned = ((_h: string, o: { all?: boolean }, cb: (...a: unknown[]) => void) =>
    o?.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)) as net.LookupFunction;
  const viaNodeHttp = () =>
    new Promise<string>((resolve, reject) => {
      const req = http.request(new URL(url), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(payload)),
          accept: 'application/json',
          authorization: 'Bearer e30.e30.bench',
          'a2a-version': '1.0',
        },
        lookup: pinned,
        agent,
      });
      const connect = setTimeout(() => req.destroy(), 10_000);
      const head = setTimeout(() => req.destroy(), 30_000);
      req.on('socket', (s) => (s.connecting ? s.once('connect', () => clearTimeout(connect)) : clearTimeout(connect)));
      req.on('error', reject);
      req.on('response', (res) => {
        clearTimeout(connect);
        clearTimeout(head);
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      });
      req.end(payload);
    });

  const target = { https: false, hostname: '127.0.0.1', host: `127.0.0.1:${port}`, port, address: '127.0.0.1' };
  const bodyOf = (res: HttpResponse) =>
    new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      res.read({ data: (c) => chunks.push(c), end: () => resolve(Buffer.concat(chunks).toString('utf8')), error: reject });
    });
  const viaUpstreamHttp = async () =>
    bodyOf(
      await httpRequest(target, {
        method: 'POST',
        path: '/a2a/jsonrpc',
        headers:
          'accept: application/json\r\na2a-version: 1.0\r\ncontent-type: application/json\r\nauthorization: Bearer e30.e30.bench\r\n',
        body: payload,
        connectTimeoutMs: 10_000,
        headTimeoutMs: 30_000,
      }),
    );

  // The floor: what one request on a kept connection costs with nothing around it.
  const request =
    `POST /a2a/jsonrpc HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\naccept: application/json\r\na2a-version: 1.0\r\n` +
    `content-type: application/json\r\nauthorization: Bearer e30.e30.bench\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`;
  const floorSocket = net.connect(port, '127.0.0.1');
  await new Promise((r) => floorSocket.once('connect', r));
  floorSocket.setEncoding('latin1');
  let floorWaiting: ((body: string) => void) | undefined;
  let floorBuffer = '';
  floorSocket.on('data', (c: string) => {
    floorBuffer += c;
    const end = floorBuffer.indexOf('\r\n\r\n');
    if (end < 0 || floorBuffer.length < end + 4 + BODY.length) return;
    const body = floorBuffer.slice(end + 4, end + 4 + BODY.length);
    floorBuffer = floorBuffer.slice(end + 4 + BODY.length);
    floorWaiting?.(body);
  });
  const viaFloor = () =>
    new Promise<string>((resolve) => {
      floorWaiting = resolve;
      floorSocket.write(request);
    });

  const clients: [string, () => Promise<string>][] = [
    ['floor (one socket, no parsing)', viaFloor],
    ['node:http (before)', viaNodeHttp],
    ['upstream-http (ADR 0385)', viaUpstreamHttp],
  ];
  const results = new Map<string, { cpuUs: number; p50: number; p99: number }[]>();
  const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
  const loadBefore = readFileSync('/proc/loadavg', 'utf8').trim();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, send] of clients) {
      for (let i = 0; i < 500; i++) if ((await send()) !== BODY) throw new Error(`${name} read another answer`);
      const latencies: number[] = [];
      const cpu0 = process.cpuUsage();
      for (let i = 0; i < REQUESTS; i++) {
        const t0 = performance.now();
        if ((await send()) !== BODY) throw new Error(`${name} read another answer`);
        latencies.push(performance.now() - t0);
      }
      const cpu = process.cpuUsage(cpu0);
      results.set(name, [
        ...(results.get(name) ?? []),
        { cpuUs: (cpu.user + cpu.system) / REQUESTS, p50: pct(latencies, 50), p99: pct(latencies, 99) },
      ]);
    }
  }
  const med = (xs: number[]) => pct(xs, 50);
  console.log(`\n## The gateway's upstream HTTP client: ${ROUNDS} alternating rounds of ${REQUESTS} requests, one at a time (medians)`);
  console.log(`load average before / after: ${loadBefore} / ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
  for (const [name, rs] of results) {
    console.log(
      `${name.padEnd(31)} client CPU ${med(rs.map((r) => r.cpuUs)).toFixed(1)} µs/request (rounds ${rs.map((r) => r.cpuUs.toFixed(0)).join(', ')}); ` +
        `latency p50 ${med(rs.map((r) => r.p50)).toFixed(3)} ms, p99 ${med(rs.map((r) => r.p99)).toFixed(3)} ms`,
    );
  }
  const [floor, before, after] = clients.map(([name]) => results.get(name)!);
  const perRound = (of: typeof floor, to: typeof floor) => of.map((r, i) => r.cpuUs / to[i].cpuUs);
  for (const [label, ratios] of [
    ['upstream-http / node:http', perRound(after, before)],
    ['upstream-http / floor', perRound(after, floor)],
    ['node:http / floor', perRound(before, floor)],
  ] as const) {
    console.log(`${label} CPU per request, per round: ${ratios.map((r) => r.toFixed(2)).join(', ')} (median ${med(ratios).toFixed(2)})`);
  }
  agent.destroy();
  floorSocket.destroy();
  closeUpstreamConnections();
  server.kill();
}

/**
 * Fuzzing push-config URLs against the running agent node (issue 27): fast-check writes webhook
 * URLs in every form an attacker would try for a private target (IPv6 literals, decimal, octal and
 * hex IPv4, IPv4-mapped IPv6, NAT64, userinfo, link-local and metadata addresses, odd schemes,
 * random text) and URLs of an allowed webhook that redirects (301/302/303/307/308) to private
 * addresses and to another origin. The agent allows 127.0.0.1 only. Properties:
 *   - never a 5xx; a refusal is InvalidParams (-32602) whose message names the url;
 *   - after every config has had its delivery, nothing reached the private receivers (127.0.0.2,
 *     [::1]) nor the other origin (another port of 127.0.0.1, reachable only through a redirect).
 * Bounded: RUNS inputs, fixed seed, the counts printed at the end.
 */
import fc from 'fast-check';
import { a2aRpc, bearer, type Json, type SecurityStack, startSecurityStack } from './support/stack';
import { enablePush, partnerToken, receiver, type Receiver, waitingTask } from './support/push';
import { until } from '../support/until';

jest.setTimeout(300_000);
const RUNS = 150;
const SEED = 2727;

describe('fuzz: push-config URLs never reach a private target or another origin', () => {
  let stack: SecurityStack;
  let hook: Receiver;
  let v4Private: Receiver;
  let v6Loopback: Receiver;
  let otherOrigin: Receiver;
  let token: string;

  beforeAll(async () => {
    v4Private = await receiver('127.0.0.2');
    v6Loopback = await receiver('::1');
    otherOrigin = await receiver('127.0.0.1');
    hook = await receiver('127.0.0.1', (req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname !== '/redirect') return false;
      res.writeHead(Number(url.searchParams.get('code')), { location: url.searchParams.get('to') ?? '/' }).end();
      return true;
    });
    stack = await startSecurityStack('fuzz_push_urls', { A2A_PUSH_ATTEMPTS: '2', A2A_PUSH_BACKOFF_MS: '50' });
    await enablePush(stack, ['127.0.0.1']);
    token = partnerToken(stack);
  });

  afterAll(async () => {
    await stack?.close();
    await Promise.all([hook, v4Private, v6Loopback, otherOrigin].map((r) => r?.close()));
  });

  it('refuses or delivers safely, and nothing reaches a private target or another origin', async () => {
    const port = (r: Receiver) => new URL(r.url).port;
    const p4 = () => port(v4Private);
    const p6 = () => port(v6Loopback);
    /** 127.0.0.2 and ::1 (both not allowed), written every way a URL parser accepts. */
    const privateForms = () => [
      `http://127.0.0.2:${p4()}/hook`,
      `http://2130706434:${p4()}/hook`, // decimal
      `http://0177.0.0.02:${p4()}/hook`, // octal
      `http://0x7f000002:${p4()}/hook`, // hex
      `http://0x7f.0.0.2:${p4()}/hook`,
      `http://127.2:${p4()}/hook`, // short form
      `http://[::ffff:127.0.0.2]:${p4()}/hook`, // IPv4-mapped
      `http://[::ffff:7f00:2]:${p4()}/hook`,
      `http://[64:ff9b::7f00:2]:${p4()}/hook`, // NAT64
      `http://[::1]:${p6()}/hook`,
      `http://[0:0:0:0:0:0:0:1]:${p6()}/hook`,
      `http://127.0.0.1:${port(hook)}@127.0.0.2:${p4()}/hook`, // userinfo
      `http://user:pw@127.0.0.2:${p4()}/hook`,
      `http://169.254.169.254/latest/meta-data/`,
      `http://[fe80::1]/`,
      `http://[fd00:ec2::254]/`,
      `http://0.0.0.0:${port(hook)}/hook`,
      `http://[::]:${port(hook)}/hook`,
      `http://100.100.100.200/`,
      `file:///etc/passwd`,
      `gopher://127.0.0.2:${p4()}/_x`,
      `HTTP://127.0.0.2:${p4()}/hook`,
    ];
    /** Where a redirect from the allowed webhook points: another origin (allowed by address) or a private address. */
    const otherOrigins = () => [
      `${otherOrigin.url}/stolen`,
      `http://2130706433:${port(otherOrigin)}/stolen`,
      `//127.0.0.1:${port(otherOrigin)}/x`,
    ];
    const redirectTarget = fc.oneof(fc.constantFrom(...otherOrigins()), fc.constantFrom(...privateForms(), `//127.0.0.2:${p4()}/x`));

    const url = fc.oneof(
      fc.constantFrom(...privateForms()),
      {
        weight: 3,
        arbitrary: fc
          .record({ to: redirectTarget, code: fc.constantFrom(301, 302, 303, 307, 308) })
          .map(({ to, code }) => `${hook.url}/redirect?code=${code}&to=${encodeURIComponent(to)}`),
      },
      fc.string({ maxLength: 60 }),
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.constantFrom(
        '',
        ' ',
        'http://',
        'http://[::1',
        'http://%31%32%37.0.0.2/',
        `http://127.0.0.2:${'9'.repeat(20)}/`,
        `http://${'a'.repeat(3000)}/`,
      ),
      fc.jsonValue({ maxDepth: 2 }),
    );

    const tried = { inputs: 0, accepted: 0, refused: 0 };
    const tasks: string[] = [];
    let configsOnTask = 10;
    await fc.assert(
      fc.asyncProperty(url, fc.option(fc.string({ maxLength: 20 }), { nil: undefined }), async (u, secret) => {
        if (configsOnTask >= 10) {
          tasks.push(await waitingTask(stack, token));
          configsOnTask = 0;
        }
        tried.inputs++;
        const config: Json = { taskId: tasks.at(-1), url: u };
        if (secret !== undefined)
          Object.assign(config, { token: 'tok-fuzz', authentication: { scheme: 'Bearer', credentials: 'cred-fuzz' } });
        const r = await a2aRpc(stack.nodeUrl, 'CreateTaskPushNotificationConfig', config, bearer(token));
        expect([u, r.status]).toEqual([u, 200]);
        if (r.body.error) {
          tried.refused++;
          expect([u, r.body.error.code]).toEqual([u, -32602]);
          expect(r.body.error.message).toMatch(/url/i);
        } else {
          tried.accepted++;
          configsOnTask++;
          expect(new URL(r.body.result.url as string).origin).toBe(hook.url);
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    // Every task's configs get the cancel update; a last delivery after them is the barrier (one job at a time).
    for (const taskId of tasks) await a2aRpc(stack.nodeUrl, 'CancelTask', { id: taskId }, bearer(token));
    const barrier = await waitingTask(stack, token);
    await a2aRpc(stack.nodeUrl, 'CreateTaskPushNotificationConfig', { taskId: barrier, url: `${hook.url}/barrier` }, bearer(token));
    await a2aRpc(stack.nodeUrl, 'CancelTask', { id: barrier }, bearer(token));
    await until('the barrier delivery', () => hook.got.some((g) => g.path === '/barrier'), 120_000);

    console.log(`push-config URL fuzz: ${JSON.stringify({ ...tried, deliveredToHook: hook.got.length })}`);
    expect(tried.accepted).toBeGreaterThan(0);
    expect(tried.refused).toBeGreaterThan(0);
    expect(v4Private.got).toEqual([]);
    expect(v6Loopback.got).toEqual([]);
    expect(otherOrigin.got).toEqual([]);
  });
});

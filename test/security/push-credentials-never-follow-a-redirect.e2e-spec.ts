/**
 * Issue 27, item 1: a push config's credentials (`Authorization`, `X-A2A-Notification-Token`) go to
 * the URL the caller named and nowhere else. A webhook that answers 307 to another origin (here
 * another port of an allowed address, so the SSRF rules alone would let it through) or to a private
 * address gets one delivery, the redirect is not followed, and the delivery is not retried.
 * (safeFetch's own rule, that no caller header crosses an origin change, is in webhook-url.spec.ts.)
 */
import { a2aRpc, bearer, type SecurityStack, startSecurityStack } from './support/stack';
import { enablePush, partnerToken, receiver, type Receiver, waitingTask } from './support/push';
import { until } from '../support/until';

jest.setTimeout(180_000);

describe('push credentials never follow a redirect', () => {
  let stack: SecurityStack;
  let hook: Receiver;
  let otherOrigin: Receiver;
  let privateTarget: Receiver;
  let token: string;

  beforeAll(async () => {
    otherOrigin = await receiver('127.0.0.1');
    privateTarget = await receiver('127.0.0.2');
    hook = await receiver('127.0.0.1', (req, res) => {
      const to = req.url === '/to-other' ? otherOrigin.url : req.url === '/to-private' ? privateTarget.url : undefined;
      if (to) res.writeHead(307, { location: `${to}/stolen` }).end();
      return to !== undefined;
    });
    stack = await startSecurityStack('push_redirects');
    await enablePush(stack, ['127.0.0.1']);
    token = partnerToken(stack);
  });

  afterAll(async () => {
    await stack?.close();
    await Promise.all([hook, otherOrigin, privateTarget].map((r) => r?.close()));
  });

  /** One cancel update to `path` (with credentials), then a later delivery as a barrier: the queue runs one job at a time. */
  async function deliverTo(path: string): Promise<void> {
    const taskId = await waitingTask(stack, token);
    const created = await a2aRpc(
      stack.nodeUrl,
      'CreateTaskPushNotificationConfig',
      {
        taskId,
        id: 'creds',
        url: `${hook.url}${path}`,
        token: 'tok-secret',
        authentication: { scheme: 'Bearer', credentials: 'cred-secret' },
      },
      bearer(token),
    );
    expect(created.body.error).toBeUndefined();
    await a2aRpc(stack.nodeUrl, 'CancelTask', { id: taskId }, bearer(token));
    await until(`the delivery to ${path}`, () => hook.got.some((g) => g.path === path), 30_000);
    const barrier = await waitingTask(stack, token);
    await a2aRpc(
      stack.nodeUrl,
      'CreateTaskPushNotificationConfig',
      { taskId: barrier, id: 'b', url: `${hook.url}/barrier${path}` },
      bearer(token),
    );
    await a2aRpc(stack.nodeUrl, 'CancelTask', { id: barrier }, bearer(token));
    await until('the barrier delivery', () => hook.got.some((g) => g.path === `/barrier${path}`), 30_000);
  }

  it('a 307 to another origin: the named URL gets the credentials once, the other origin gets nothing', async () => {
    await deliverTo('/to-other');
    const named = hook.got.filter((g) => g.path === '/to-other');
    expect(named).toHaveLength(1); // not retried: a redirect is a final failure
    expect(named[0].headers).toMatchObject({ authorization: 'Bearer cred-secret', 'x-a2a-notification-token': 'tok-secret' });
    expect(otherOrigin.got).toEqual([]);
  });

  it('a 307 to a private address that is not allowed: nothing reaches it', async () => {
    await deliverTo('/to-private');
    expect(hook.got.filter((g) => g.path === '/to-private')).toHaveLength(1);
    expect(privateTarget.got).toEqual([]);
  });
});

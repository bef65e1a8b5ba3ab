import { A2AError, A2AErrorName } from './a2a-errors';
import { onTaskStore } from './store-unavailable';

const replyError = () => Object.assign(new Error('ERR wrong number of arguments'), { name: 'ReplyError' });

describe('onTaskStore (the task store fails fast when Redis is away, ADR 0240)', () => {
  it('refuses without sending anything while the connection is known lost', async () => {
    const op = jest.fn(async () => 'sent');
    // ioredis between reconnection attempts.
    await expect(onTaskStore({ status: 'reconnecting' }, op)).rejects.toMatchObject({
      kind: A2AErrorName.Unavailable,
      reason: 'TASK_STORE_UNAVAILABLE',
      metadata: { dependency: 'task-store', retryAfterSeconds: expect.stringMatching(/^\d+$/) },
    });
    expect(op).not.toHaveBeenCalled();
  });

  it('runs the command when Redis is ready', async () => {
    await expect(onTaskStore({ status: 'ready' }, async () => 'sent')).resolves.toBe('sent');
  });

  it('turns a connection failure during the command into the same refusal (503 + Retry-After)', async () => {
    const failed = onTaskStore({ status: 'ready' }, () => Promise.reject(new Error('Connection is closed.')));
    await expect(failed).rejects.toMatchObject({ reason: 'TASK_STORE_UNAVAILABLE' });
    const error = (await failed.catch((e: unknown) => e)) as A2AError;
    expect(error.mapping.http).toBe(503);
    expect(error.message).toMatch(/task store/);
  });

  it("keeps Redis's own replies and the store's refusals as they are", async () => {
    await expect(onTaskStore({ status: 'ready' }, () => Promise.reject(replyError()))).rejects.toMatchObject({ name: 'ReplyError' });
    const tooLarge = new A2AError(A2AErrorName.PayloadTooLarge, 'too large');
    await expect(onTaskStore({ status: 'ready' }, () => Promise.reject(tooLarge))).rejects.toBe(tooLarge);
  });
});

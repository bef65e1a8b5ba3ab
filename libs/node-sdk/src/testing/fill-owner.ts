/**
 * Another replica's saves, as specs of the store's byte limits need them: one completed task of
 * `owner`'s, padded so that the owner holds its byte limit less `room` bytes. Returns what the
 * owner then holds.
 */
import type { RedisTaskStore } from '../a2a/redis-task-store';

export async function fillOwner(
  store: RedisTaskStore,
  maxOwnerBytes: number,
  owner: string,
  tenant: string,
  room: number,
): Promise<number> {
  const task = {
    id: crypto.randomUUID(),
    contextId: 'c',
    status: { state: 'TASK_STATE_COMPLETED' as const, timestamp: new Date().toISOString() },
  };
  const save = (pad: string) => store.save({ owner, tenant, seq: 1, updatedAt: Date.now(), task: { ...task, metadata: { pad } } });
  await save('');
  await save('x'.repeat(maxOwnerBytes - room - (await store.bytesOf(owner))));
  return store.bytesOf(owner);
}

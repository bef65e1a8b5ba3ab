/**
 * Push-notification configs (A2A 1.0 §3.1.7–3.1.10, TaskPushNotificationConfig): where a task's
 * updates are POSTed. Each belongs to one task and so to that task's owner; the store keeps them
 * per agent and task, bounded in number and size, and forgets them with the task's retention.
 */
import { randomUUID } from 'node:crypto';
import { parseWebhookUrl, type RedisClient } from '@cp/common/core';
import { A2AError, A2AErrorName } from '../a2a-errors';

/** What the caller gave (1.0 shape, taskId included), validated. */
export interface PushConfigInput {
  taskId: string;
  id: string;
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
}

export interface PushConfig extends PushConfigInput {
  owner: string;
  /** The protocol version it was created with: 0.3 configs get 0.3 bodies (ADR 0162). */
  version: '1.0' | '0.3';
}

/** What a caller reads back: the credentials are write-only. */
export interface PushConfigView {
  taskId: string;
  id: string;
  url: string;
  token?: string;
  authentication?: { scheme: string };
}

export interface PushConfigLimits {
  maxPerTask: number;
  maxUrlLength: number;
  maxTokenLength: number;
  maxCredentialsLength: number;
}

export const DEFAULT_PUSH_CONFIG_LIMITS: PushConfigLimits = {
  maxPerTask: 10,
  maxUrlLength: 2048,
  maxTokenLength: 1024,
  maxCredentialsLength: 4096,
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const invalid = (path: string, message: string) => new A2AError(A2AErrorName.InvalidParams, `${path}: ${message}`, { field: path });
/** RFC 9110 auth-scheme (a token). */
const SCHEME = /^[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]{0,63}$/;
/** Visible ASCII and spaces only: the value becomes a header (no CR/LF injection). */
const HEADER_VALUE = /^[\x20-\x7e]*$/;
const CONFIG_ID = /^[A-Za-z0-9._~-]{1,128}$/;
const KNOWN = new Set(['taskId', 'id', 'url', 'token', 'authentication', 'tenant']);

/** Shape and size checks; InvalidParams naming the first bad field. The URL's addresses are checked by the caller. */
export function pushConfigInput(raw: unknown, limits: PushConfigLimits, path = 'params', taskId?: string): PushConfigInput {
  if (!isObject(raw)) throw invalid(path, 'must be an object');
  for (const key of Object.keys(raw)) if (!KNOWN.has(key)) throw invalid(`${path}.${key}`, 'is not a field of TaskPushNotificationConfig');
  const task = taskId ?? raw.taskId;
  if (typeof task !== 'string' || task === '' || task.length > 256) throw invalid(`${path}.taskId`, 'must be a task id');
  let id: string = randomUUID();
  if (raw.id !== undefined && raw.id !== '') {
    if (typeof raw.id !== 'string' || !CONFIG_ID.test(raw.id))
      throw invalid(`${path}.id`, 'must be 1-128 characters of A-Z a-z 0-9 . _ ~ -');
    id = raw.id;
  }
  const url = parseWebhookUrl(raw.url, { maxUrlLength: limits.maxUrlLength });
  if (!url.ok) throw invalid(`${path}.url`, url.reason);
  const out: PushConfigInput = { taskId: task, id, url: url.url.href };
  if (raw.token !== undefined && raw.token !== '') {
    if (typeof raw.token !== 'string' || raw.token.length > limits.maxTokenLength || !HEADER_VALUE.test(raw.token)) {
      throw invalid(`${path}.token`, `must be printable ASCII of at most ${limits.maxTokenLength} characters`);
    }
    out.token = raw.token;
  }
  const a = raw.authentication;
  if (a !== undefined && a !== null) {
    if (!isObject(a)) throw invalid(`${path}.authentication`, 'must be an object');
    if (typeof a.scheme !== 'string' || !SCHEME.test(a.scheme))
      throw invalid(`${path}.authentication.scheme`, 'must be an HTTP auth scheme such as Bearer');
    out.authentication = { scheme: a.scheme };
    if (a.credentials !== undefined && a.credentials !== '') {
      if (typeof a.credentials !== 'string' || a.credentials.length > limits.maxCredentialsLength || !HEADER_VALUE.test(a.credentials)) {
        throw invalid(`${path}.authentication.credentials`, `must be printable ASCII of at most ${limits.maxCredentialsLength} characters`);
      }
      out.authentication.credentials = a.credentials;
    }
  }
  return out;
}

export function viewOf(c: PushConfig): PushConfigView {
  const v: PushConfigView = { taskId: c.taskId, id: c.id, url: c.url };
  if (c.token !== undefined) v.token = c.token;
  if (c.authentication) v.authentication = { scheme: c.authentication.scheme };
  return v;
}

export interface PushConfigStore {
  /** Saves (or replaces, same id) a config; false when the task already has `maxPerTask` others. */
  put(config: PushConfig, maxPerTask: number): Promise<boolean>;
  list(taskId: string): Promise<PushConfig[]>;
  get(taskId: string, id: string): Promise<PushConfig | undefined>;
  delete(taskId: string, id: string): Promise<void>;
}

/** Per agent (the prefix) and task: one Redis hash, expiring with the task retention. */
export class RedisPushConfigStore implements PushConfigStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly retentionMs: number,
  ) {}

  private key(taskId: string): string {
    return `${this.prefix}push:${taskId}`;
  }

  async put(config: PushConfig, maxPerTask: number): Promise<boolean> {
    // Atomic count-and-set: concurrent creates cannot pass the bound together.
    const ok = (await this.redis.eval(
      `if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
       redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) redis.call('PEXPIRE', KEYS[1], ARGV[4]) return 1`,
      1,
      this.key(config.taskId),
      config.id,
      JSON.stringify(config),
      String(maxPerTask),
      String(this.retentionMs),
    )) as number;
    return ok === 1;
  }

  async list(taskId: string): Promise<PushConfig[]> {
    const all = await this.redis.hgetall(this.key(taskId));
    return Object.values(all)
      .map((v) => JSON.parse(v) as PushConfig)
      .sort((a, b) => a.id.localeCompare(b.id));
  }

  async get(taskId: string, id: string): Promise<PushConfig | undefined> {
    const v = await this.redis.hget(this.key(taskId), id);
    return v === null ? undefined : (JSON.parse(v) as PushConfig);
  }

  async delete(taskId: string, id: string): Promise<void> {
    await this.redis.hdel(this.key(taskId), id);
  }
}

export class InMemoryPushConfigStore implements PushConfigStore {
  private readonly byTask = new Map<string, Map<string, PushConfig>>();

  async put(config: PushConfig, maxPerTask: number): Promise<boolean> {
    const m = this.byTask.get(config.taskId) ?? new Map<string, PushConfig>();
    if (!m.has(config.id) && m.size >= maxPerTask) return false;
    m.set(config.id, structuredClone(config));
    this.byTask.set(config.taskId, m);
    return true;
  }

  async list(taskId: string): Promise<PushConfig[]> {
    return [...(this.byTask.get(taskId)?.values() ?? [])].sort((a, b) => a.id.localeCompare(b.id)).map((c) => structuredClone(c));
  }

  async get(taskId: string, id: string): Promise<PushConfig | undefined> {
    const c = this.byTask.get(taskId)?.get(id);
    return c && structuredClone(c);
  }

  async delete(taskId: string, id: string): Promise<void> {
    this.byTask.get(taskId)?.delete(id);
  }
}

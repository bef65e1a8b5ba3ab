import { z } from 'zod';
import { wholeNumber } from './config-fields';

/** The A2A layer's tasks and streams on agent nodes: stored bytes, nesting, stream guards, when a task is first saved. */
export const A2A_TASK_FIELDS = {
  /** A2A tasks (shared Redis store): how long a task lives after its last update, and byte bounds. */
  A2A_TASK_RETENTION_SECONDS: z.coerce.number().int().min(60).default(86_400),
  /** Stored bytes of one task (history, artifacts, status); a save past it is refused. */
  A2A_TASK_MAX_BYTES: z.coerce.number().int().min(4096).default(2_097_152),
  /** Stored bytes of one owner's tasks; all anonymous callers share one such budget. */
  A2A_OWNER_MAX_BYTES: z.coerce.number().int().min(4096).default(33_554_432),
  /** A message part larger than this is refused in a request. */
  A2A_PART_MAX_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  /** A part larger than this is handed to the handler but replaced by a stub in stored history. */
  A2A_HISTORY_PART_MAX_BYTES: z.coerce.number().int().min(256).default(16_384),
  /** Deepest JSON nesting accepted in params, metadata and data parts. */
  A2A_MAX_JSON_DEPTH: z.coerce.number().int().min(4).max(256).default(32),
  /** Open SSE streams one node serves at once; past it a stream request is refused (503). */
  A2A_MAX_STREAMS: z.coerce.number().int().min(1).default(2000),
  /** Stream guards (ADR 0205): open streams of one authenticated owner. */
  A2A_MAX_STREAMS_PER_OWNER: z.coerce.number().int().min(1).default(200),
  /** Open streams of all anonymous callers together (their own pool, at most half the node's; 0: anonymous callers cannot stream). */
  A2A_MAX_ANONYMOUS_STREAMS: z.coerce.number().int().min(0).default(200),
  /** Open streams on one task. */
  A2A_MAX_STREAMS_PER_TASK: z.coerce.number().int().min(1).max(1000).default(10),
  /** A stream with no event this long ends with a STREAM_IDLE_TIMEOUT error event (heartbeats do not count). */
  A2A_STREAM_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).max(86_400_000).default(300_000),
  /** A stream ends with a STREAM_MAX_LIFETIME error event this long after it opened. */
  A2A_STREAM_MAX_LIFETIME_MS: z.coerce.number().int().min(100).max(86_400_000).default(3_600_000),
  /** Bytes a slow reader may leave unread before its stream ends with STREAM_READER_TOO_SLOW. */
  A2A_STREAM_BUFFER_MAX_BYTES: z.coerce.number().int().min(4096).max(268_435_456).default(1_048_576),
  /**
   * A stream on a task this node just created hears other replicas' events (a cancel sent to
   * another replica) once it has been open this long; a shorter stream never subscribes. 0: at once,
   * its first event waiting for the subscription (ADR 0380).
   */
  A2A_STREAM_REMOTE_AFTER_MS: wholeNumber(0, 10_000).default(100),
  /**
   * When a new task's stream shows its first event: `early` = once every check has passed, before
   * its first save (a refused save then ends the stream with an error event; nothing is stored);
   * the handler starts once that event is written and the first save waits for its result or the
   * end of the next turn, so a handler answering at once is saved with it (ADR 0401); `stored` =
   * after that save, the handler too (ADR 0396).
   */
  A2A_STREAM_FIRST_EVENT: z.enum(['early', 'stored']).default('early'),
  /**
   * A new SendMessage task is first saved with its result when that comes within this many ms (one
   * save instead of two), as it stands at this time otherwise; 0: before the handler runs (ADR 0397).
   * A forwarded stream's first save (and first event) waits at most as long, for the upstream's
   * first answer of any kind (ADR 0402).
   */
  A2A_SEND_STORE_AFTER_MS: wholeNumber(0, 10_000).default(100),
};

/** Push notifications to callers' webhooks: retries, deadlines, the backlog's bounds, concurrency. */
export const A2A_PUSH_FIELDS = {
  /** Push notifications (ADR 0162): attempts per update and webhook (first included), first retry delay (doubling), per-call deadline. */
  A2A_PUSH_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
  A2A_PUSH_BACKOFF_MS: z.coerce.number().int().min(10).max(600_000).default(1000),
  A2A_PUSH_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /**
   * Push backlog and delivery (ADR 0202): undelivered notifications (one per update and config)
   * and the bytes of their bodies (each stored once per update), per task and per owner, counted
   * in the owner's A2A_OWNER_MAX_BYTES too; deliveries in flight per node, and per owner per node.
   */
  A2A_PUSH_TASK_MAX_QUEUED: z.coerce.number().int().min(1).max(10_000).default(100),
  A2A_PUSH_TASK_MAX_QUEUED_BYTES: z.coerce.number().int().min(4096).max(1_073_741_824).default(2_097_152),
  A2A_PUSH_OWNER_MAX_QUEUED: z.coerce.number().int().min(1).max(1_000_000).default(1000),
  A2A_PUSH_OWNER_MAX_QUEUED_BYTES: z.coerce.number().int().min(4096).max(1_073_741_824).default(8_388_608),
  A2A_PUSH_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(32),
  A2A_PUSH_OWNER_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(4),
};

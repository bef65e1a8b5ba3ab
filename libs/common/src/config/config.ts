import { z } from 'zod';
import { A2A_PUSH_FIELDS, A2A_TASK_FIELDS } from './a2a-config-fields';
import { bool, lifetime, list, plainDecimal, port, url, wholeNumber } from './config-fields';

/**
 * The one typed configuration of every process. Nothing else reads process.env: apps
 * receive an AppConfig through the AppConfigModule, scripts call loadConfig().
 * Defaults work with the services on a developer machine; production must set secrets.
 */
const DEV_SECRET = 'dev-only-secret-change-me-0123456789abcdef';

/** Interfaces only this machine can reach: the one place the public development secret is tolerated. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}
const configFields = z.object({
  /** Unset: development on a loopback HOST, production on any other (never silently permissive). */
  NODE_ENV: z.enum(['development', 'test', 'production']).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: url(['postgres:', 'postgresql:']).default('postgresql://postgres@127.0.0.1:5432/capability_control_plane'),
  REDIS_URL: url(['redis:', 'rediss:']).default('redis://127.0.0.1:6379'),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[a-z0-9:_-]*$/, 'lowercase letters, digits, ":", "_" and "-" only')
    .default('cp:'),
  /**
   * Redis Cluster (ADR 0151): seed nodes `host:port,host:port,…`; set, every process talks to the
   * cluster and REDIS_URL gives only credentials and TLS (`rediss:`), its host is ignored.
   */
  REDIS_CLUSTER_NODES: list
    .pipe(
      z
        .array(
          z.string().refine((node) => {
            const match = /^([A-Za-z0-9.-]+):(\d{1,5})$/.exec(node);
            return match !== null && Number(match[2]) >= 1 && Number(match[2]) <= 65535;
          }, 'each node must be host:port (a host name or IPv4 address, a port 1–65535)'),
        )
        .min(1, 'must name at least one node')
        .max(100, 'at most 100 seed nodes'),
    )
    .optional(),
  /** Node sync's periodic work, once per fleet under a lease (ADR 0150): outbox relay and re-announce intervals (0: off), and how far back re-announce looks. */
  SYNC_OUTBOX_INTERVAL_MS: z.coerce.number().int().min(0).default(5_000),
  SYNC_REANNOUNCE_INTERVAL_MS: z.coerce.number().int().min(0).default(30_000),
  SYNC_REANNOUNCE_WINDOW_MS: z.coerce.number().int().min(1000).default(600_000),
  /** Longest delta pushed to nodes with a revision's announcement, in characters (ADR 0199); 0: nodes always fetch. */
  SYNC_PUSH_DELTA_MAX_LENGTH: z.coerce
    .number()
    .int()
    .min(0)
    .max(1024 * 1024)
    .default(64 * 1024),
  /** Interface every app listens on (0.0.0.0 in containers). */
  HOST: z.string().default('127.0.0.1'),
  CONTROL_PLANE_PORT: port.default(3000),
  WORKER_PORT: port.default(3001),
  AGENT_NODE_PORT: port.default(3002),
  /** Where agent nodes (and the control plane's own JWKS URL) reach it; unset: http://127.0.0.1:<CONTROL_PLANE_PORT>. */
  CONTROL_PLANE_URL: url(['http:', 'https:']).optional(),
  /** Admin and node tokens: HS256 with JWT_SECRET, and/or RS256/ES256 with keys from a JWKS file or URL. */
  JWT_ALGORITHMS: list.pipe(z.array(z.enum(['HS256', 'RS256', 'ES256'])).min(1)).default(['HS256']),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').default(DEV_SECRET),
  JWT_JWKS_FILE: z.string().optional(),
  JWT_JWKS_URL: url(['http:', 'https:']).optional(),
  JWT_ISSUER: z.string().min(1).default('capability-control-plane'),
  JWT_AUDIENCE: z.string().min(1).default('capability-control-plane'),
  /**
   * Longest lifetime (exp - iat, seconds) accepted per token kind; every token must carry exp
   * and iat (ADR 0066). Tool tokens are minted for at most JWT_MAX_LIFETIME_TOOL_SECONDS.
   */
  JWT_MAX_LIFETIME_ADMIN_SECONDS: lifetime(12 * 3600),
  JWT_MAX_LIFETIME_NODE_SECONDS: lifetime(30 * 24 * 3600),
  JWT_MAX_LIFETIME_A2A_SECONDS: lifetime(3600),
  JWT_MAX_LIFETIME_TOOL_SECONDS: lifetime(300),
  /**
   * The signing key ring (ADR 0130): cards, node bundles and tool tokens are ES256 JWS under it.
   * SIGNING_KEYS (the key ring document as JSON) or SIGNING_KEYS_FILE (a path to it); without
   * either, development generates one key and keeps it in SIGNING_DEV_KEY_FILE (mode 0600), and
   * production refuses to start. A file is re-read when it changes (rotation without a restart).
   */
  SIGNING_KEYS: z.string().min(2).optional(),
  SIGNING_KEYS_FILE: z.string().min(1).optional(),
  SIGNING_DEV_KEY_FILE: z.string().min(1).default('.cache/control-plane/signing-keys.json'),
  SIGNING_KEYS_RELOAD_MS: z.coerce.number().int().min(50).default(10_000),
  /**
   * The JWKS every verifier (agent nodes, tools) pins: a URL in configuration, never one named by
   * what it verifies (no jku). Default: the control plane's /.well-known/jwks.json.
   */
  SIGNING_JWKS_URL: url(['http:', 'https:']).optional(),
  /** How long a verifier keeps a fetched JWKS, and the least time between two fetches on an unknown kid. */
  SIGNING_JWKS_CACHE_SECONDS: z.coerce.number().int().min(1).default(300),
  SIGNING_JWKS_COOLDOWN_MS: z.coerce.number().int().min(0).default(30_000),
  /** Tokens that partner agents present to agent nodes. */
  A2A_JWT_ISSUER: z.string().min(1).default('capability-control-plane'),
  /**
   * The audience an a2a token must carry to be accepted by one agent: `{agentId}` is replaced by
   * that agent's id, so a token for one agent is refused by every other (ADR 0065).
   */
  A2A_JWT_AUDIENCE: z
    .string()
    .min(1)
    .refine((value) => value.includes('{agentId}'), 'must contain {agentId}: each agent needs an audience of its own')
    .default('urn:a2a-agent:{agentId}'),
  MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  /**
   * The AI Catalog (docs/catalog.md, ADR 0250): the publisher in every `urn:air:{publisher}:agent:{id}`
   * (URN characters only), the host's display name, and the audience of the a2a tokens the control
   * plane's catalog accepts (one audience for the whole fleet: agent audiences are per agent).
   */
  CATALOG_PUBLISHER: z
    .string()
    .regex(/^[A-Za-z0-9._~-]{1,64}$/, 'must be 1-64 of A-Z a-z 0-9 . _ ~ - (it is part of a URN)')
    .default('capability-control-plane'),
  CATALOG_HOST_NAME: z.string().min(1).max(200).default('Capability control plane'),
  CATALOG_JWT_AUDIENCE: z.string().min(1).max(200).default('urn:ai-catalog'),
  /**
   * Control plane, GET /node/v1/bundle: full bundles being sent at once; past it a node is told
   * 503 with Retry-After (a reconnect storm is spread out instead of queued; ADR 0156). 304s and
   * deltas are never shed for load (ADR 0157).
   */
  NODE_BUNDLE_MAX_IN_FLIGHT: z.coerce.number().int().min(1).default(256),
  /** The Retry-After (seconds) of that 503; each answer says a random value between it and twice it. */
  NODE_BUNDLE_RETRY_AFTER_SECONDS: z.coerce.number().int().min(1).max(300).default(2),
  /** Admin GraphQL API: limits per operation, and a file to write the code-first schema to (unset: it stays in memory; the committed schema is written only by the drift test). */
  /**
   * The admin console (served under /console, docs/console.md): where its built assets are, the
   * OpenID provider it signs in with (authorization code + PKCE; the control plane still verifies
   * the access token with JWT_* above), and whether the one-click development sign-in is offered
   * (never in production).
   */
  CONSOLE_DIR: z.string().min(1).default('dist/console'),
  CONSOLE_OIDC_ISSUER: url(['http:', 'https:']).optional(),
  CONSOLE_OIDC_CLIENT_ID: z.string().min(1).max(256).optional(),
  CONSOLE_OIDC_SCOPE: z.string().min(1).max(1024).default('openid profile'),
  /** RFC 8707 resource indicator asked for with the code, so the IdP mints an access token for JWT_AUDIENCE. */
  CONSOLE_OIDC_RESOURCE: url(['http:', 'https:', 'urn:']).optional(),
  CONSOLE_DEV_SIGN_IN: bool.optional(),
  /** How long a console screen waits for the API before it offers a retry (the spinner shows after CONSOLE_SPINNER_DELAY_MS). */
  CONSOLE_API_TIMEOUT_MS: z.coerce.number().int().min(1000).max(300_000).default(15_000),
  CONSOLE_SPINNER_DELAY_MS: z.coerce.number().int().min(0).max(10_000).default(300),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(2).default(10),
  GRAPHQL_MAX_COMPLEXITY: z.coerce.number().int().min(10).default(5000),
  /** Aliased fields per operation, field selections at its root, and lexical tokens per document (parse stops there). */
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(0).default(30),
  GRAPHQL_MAX_ROOT_FIELDS: z.coerce.number().int().min(1).default(20),
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().min(1000).default(5000),
  GRAPHQL_SCHEMA_FILE: z.string().optional(),
  /** Agent node settings. */
  AGENT_ID: z
    .string()
    .regex(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/, 'must be an agent slug')
    .default('finance-agent'),
  NODE_ID: z.string().min(1).optional(),
  NODE_CACHE_DIR: z.string().default('.cache/agent-node'),
  NODE_POLL_INTERVAL_MS: z.coerce.number().int().min(100).default(30_000),
  /**
   * Extended cards of classes past the bundle's limit (ADR 0132): how long the first request of
   * such a class waits for the control plane's signatures before the card goes out unsigned
   * (0: never ask).
   */
  NODE_CARD_SIGNING_WAIT_MS: z.coerce.number().int().min(0).max(30_000).default(1000),
  /** How often an agent node closes a usage window and reports it. */
  USAGE_FLUSH_INTERVAL_MS: z.coerce.number().int().min(100).default(60_000),
  NODE_TOKEN: z.string().optional(),
  /** Semantic router (ADR 0093): an OpenAI-compatible embeddings API; unset = the lexical router only. */
  EMBEDDINGS_URL: url(['http:', 'https:']).optional(),
  EMBEDDINGS_MODEL: z.string().min(1).default('text-embedding-3-small'),
  EMBEDDINGS_API_KEY: z.string().min(1).optional(),
  /** Past this the lexical router decides for that message. */
  EMBEDDINGS_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(800),
  /**
   * What the embeddings endpoint does (ADR 0361): `route` = it decides messages (ADR 0093);
   * `choices` = the lexical router decides and the endpoint is asked only when the router
   * clarifies, to choose and order the choices it offers (cannot add a wrong route);
   * `second-opinion` = `choices`, and the endpoint is asked about routed messages too and may turn
   * a route into a clarification when it disagrees by more than a margin (ADR 0362; can only
   * remove routes, never add or change one).
   */
  EMBEDDINGS_ROLE: z.enum(['route', 'choices', 'second-opinion']).default('route'),
  /**
   * `second-opinion`'s veto margin (ADR 0362): a route becomes a question when the embeddings' best
   * cosine exceeds the routed capability's by more than this. 0.2 was chosen for USE-lite on the
   * tuning half; another model has its own scale: measure it with test/support/routing-eval/tune-veto.ts.
   */
  EMBEDDINGS_VETO_MARGIN: plainDecimal(0, 2).default(0.2),
  /**
   * The chat-completions router (issue 31, ADR 0291): an OpenAI-compatible chat API chooses among
   * the caller's entitled candidates; unset = off. The caller's message text leaves the node: a
   * node serves one agent (AGENT_ID), so leaving it unset on an agent's nodes switches it off for
   * that agent.
   */
  CHAT_ROUTER_URL: url(['http:', 'https:']).optional(),
  CHAT_ROUTER_MODEL: z.string().min(1).default('gpt-4o-mini'),
  CHAT_ROUTER_API_KEY: z.string().min(1).optional(),
  /** Past this (whole answer) the fallback (embeddings, else lexical) decides for that message. */
  CHAT_ROUTER_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(2000),
  /** How the model answers: a forced tool call, or a JSON-schema response_format. */
  CHAT_ROUTER_OUTPUT: z.enum(['tool', 'json-schema']).default('tool'),
  /** After a failure the endpoint is left alone this long. */
  CHAT_ROUTER_COOL_DOWN_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  /** Answers cached by message and candidate-list hash (0: no cache). */
  CHAT_ROUTER_CACHE_ENTRIES: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
  ...A2A_TASK_FIELDS,
  /** Log lines: `pretty` (coloured, for people), `json`, or `auto` = pretty when stdout is a terminal outside production. */
  LOG_FORMAT: z.enum(['auto', 'pretty', 'json']).default('auto'),
  /**
   * Prometheus /metrics (ADR 0140): each app serves it on a port of its own, bound to METRICS_HOST
   * (loopback by default), never on the app's own port, so A2A callers cannot reach it.
   * 0 = an ephemeral port (tests).
   */
  METRICS_ENABLED: bool.default(true),
  METRICS_HOST: z.string().default('127.0.0.1'),
  CONTROL_PLANE_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9300),
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9301),
  AGENT_NODE_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9302),
  /**
   * OpenTelemetry traces (ADR 0141), the standard OTEL_* variables: tracing is on only when an OTLP
   * endpoint is set and OTEL_SDK_DISABLED is not true. The exporter gets the endpoint and headers
   * from here; OTEL_EXPORTER_OTLP_TIMEOUT / _COMPRESSION are read by the exporter package itself.
   */
  OTEL_SDK_DISABLED: bool.default(false),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: url(['http:', 'https:']).optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url(['http:', 'https:']).optional(),
  /** `key=value,key2=value2` (W3C baggage style, as the OTel spec defines it). */
  OTEL_EXPORTER_OTLP_HEADERS: z.string().optional(),
  OTEL_TRACES_SAMPLER: z
    .enum(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'])
    .default('parentbased_always_on'),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(),
  ...A2A_PUSH_FIELDS,
  /**
   * Gateway nodes (ADR 0275): how often each upstream's own card is fetched (also after every
   * applied revision), the deadline of one fetch, and the largest card read.
   */
  UPSTREAM_PROBE_INTERVAL_MS: z.coerce.number().int().min(1000).max(3_600_000).default(30_000),
  UPSTREAM_PROBE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  UPSTREAM_CARD_MAX_BYTES: z.coerce.number().int().min(1024).max(16_777_216).default(1_048_576),
  /** Retirement job. */
  RETIREMENT_CRON: z.string().default('0 3 * * *'),
  RETIREMENT_WINDOW_DAYS: z.coerce.number().int().min(1).default(30),
  /** A capability must have been deprecated this long before the job may retire it. */
  RETIREMENT_MIN_DEPRECATED_DAYS: z.coerce.number().int().min(0).default(30),
  /** How far behind now a node's usage coverage may end (its flush interval plus transit). */
  RETIREMENT_COVERAGE_GRACE_SECONDS: z.coerce.number().int().min(0).default(900),
  /** Whether the worker schedules the repeatable retirement job (off: runs only on demand). */
  RETIREMENT_SCHEDULE_ENABLED: bool.default(true),
  /**
   * Usage batch ids are kept this long to recognise a retried batch; older ones are pruned by
   * the daily job, and a batch whose window ended before this window is refused (it could no
   * longer be told apart from a retry). Must exceed RETIREMENT_WINDOW_DAYS.
   */
  USAGE_BATCH_RETENTION_DAYS: z.coerce.number().int().min(2).default(35),
  /**
   * Issue 32: hourly health rows (outcomes and latency per capability and tenant) older than this
   * are deleted by the daily job; the health query then shows no calls for those hours. The default
   * is the longest range the capabilityHealth query accepts.
   */
  HEALTH_RETENTION_DAYS: z.coerce.number().int().min(1).default(93),
  /**
   * Issue 31 (ADR 0336): a clarification the same tenant answered the same way this many times is
   * promoted as an example automatically (audited as system:auto-promotion). 0, the default: never.
   */
  CLARIFICATION_AUTO_PROMOTE_AFTER: wholeNumber(0, 1000).default(0),
  /** Issue 21: a sunset date set or moved must be at least this many days ahead. */
  DEPRECATION_SUNSET_MIN_NOTICE_DAYS: z.coerce.number().int().min(0).default(7),
  /** Issue 21: how often the worker looks for deprecation notices to send (cron, default every 10 minutes). */
  DEPRECATION_NOTICE_CRON: z.string().default('*/10 * * * *'),
  DEPRECATION_NOTICE_SCHEDULE_ENABLED: bool.default(true),
  /** Delivery attempts of one notice before it is dead-lettered, and the first retry delay (exponential). */
  DEPRECATION_NOTICE_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(6),
  DEPRECATION_NOTICE_BACKOFF_MS: z.coerce.number().int().min(10).default(30_000),
  DEPRECATION_NOTICE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  /** Hosts, IPs or CIDRs notice endpoints may use although private (comma-separated; default none: public addresses only). */
  DEPRECATION_NOTICE_ALLOW: list.default([]),
  /**
   * Issue 32 (ADR 0300): the change kinds that need a second admin while no platform admin has set
   * the registry's approval policy (comma-separated, or `none`; an empty variable is unset like
   * every other). Kinds: public, access, upstream, undeprecate, remove, allowlist (an agent's
   * webhook or upstream allow list widened, ADR 0325).
   */
  APPROVAL_DEFAULT_KINDS: z
    .string()
    .transform((value) => (value.trim() === 'none' ? '' : value))
    .pipe(list)
    .pipe(
      z.array(
        z.enum(
          ['public', 'access', 'upstream', 'undeprecate', 'remove', 'allowlist'],
          'must be public, access, upstream, undeprecate, remove or allowlist',
        ),
      ),
    )
    .default(['public', 'access', 'upstream', 'undeprecate', 'remove', 'allowlist']),
  /** Tenants whose notification endpoints receive change-request notices (comma-separated, at most 20; default none). */
  CHANGE_REQUEST_NOTICE_TENANTS: list
    .pipe(z.array(z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'each must be a tenant id')).max(20, 'at most 20 tenants'))
    .default([]),
});

export const configSchema = configFields
  .superRefine((config, ctx) => {
    if ((config.CONSOLE_OIDC_ISSUER === undefined) !== (config.CONSOLE_OIDC_CLIENT_ID === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [config.CONSOLE_OIDC_ISSUER === undefined ? 'CONSOLE_OIDC_ISSUER' : 'CONSOLE_OIDC_CLIENT_ID'],
        message: 'CONSOLE_OIDC_ISSUER and CONSOLE_OIDC_CLIENT_ID are set together',
      });
    }
    // The anonymous pool stays well below the node's cap, so anonymous streams cannot starve token holders.
    if (config.A2A_MAX_ANONYMOUS_STREAMS > Math.floor(config.A2A_MAX_STREAMS / 2)) {
      ctx.addIssue({
        code: 'custom',
        path: ['A2A_MAX_ANONYMOUS_STREAMS'],
        message: `must be at most half of A2A_MAX_STREAMS (${config.A2A_MAX_STREAMS}): anonymous callers must not fill the node`,
      });
    }
    if (config.A2A_MAX_STREAMS_PER_OWNER > config.A2A_MAX_STREAMS) {
      ctx.addIssue({
        code: 'custom',
        path: ['A2A_MAX_STREAMS_PER_OWNER'],
        message: `must be at most A2A_MAX_STREAMS (${config.A2A_MAX_STREAMS})`,
      });
    }
    if (config.USAGE_BATCH_RETENTION_DAYS <= config.RETIREMENT_WINDOW_DAYS) {
      ctx.addIssue({
        code: 'custom',
        path: ['USAGE_BATCH_RETENTION_DAYS'],
        message: `must be more than RETIREMENT_WINDOW_DAYS (${config.RETIREMENT_WINDOW_DAYS}): retirement reads that much usage`,
      });
    }
    // Fail closed: the default secret is public, and it signs tool tokens (and node tokens outside
    // production) whatever JWT_ALGORITHMS lists, so it is refused in production and on any
    // interface other machines can reach.
    if (config.JWT_SECRET === DEV_SECRET) {
      if (!isLoopbackHost(config.HOST)) {
        ctx.addIssue({
          code: 'custom',
          path: ['JWT_SECRET'],
          message: `must be set when HOST (${config.HOST}) is not a loopback address (the default is public, for development only)`,
        });
      } else if (config.NODE_ENV === 'production') {
        ctx.addIssue({ code: 'custom', path: ['JWT_SECRET'], message: 'must be set in production (the default is for development only)' });
      }
    }
  })
  .superRefine((config, ctx) => {
    const production = (config.NODE_ENV ?? (isLoopbackHost(config.HOST) ? 'development' : 'production')) === 'production';
    const refusal = production
      ? 'the development sign-in is refused in production'
      : !isLoopbackHost(config.HOST)
        ? `the development sign-in is refused when HOST (${config.HOST}) is not a loopback address`
        : !config.JWT_ALGORITHMS.includes('HS256')
          ? 'the development sign-in needs HS256 in JWT_ALGORITHMS'
          : undefined;
    if (config.CONSOLE_DEV_SIGN_IN && refusal) ctx.addIssue({ code: 'custom', path: ['CONSOLE_DEV_SIGN_IN'], message: refusal });
  })
  .transform((config) => {
    const NODE_ENV = config.NODE_ENV ?? (isLoopbackHost(config.HOST) ? 'development' : 'production');
    // The one-click sign-in mints platform-admin tokens: only when asked for (`npm start` asks for
    // the demo), never by default, since a loopback HOST behind a same-host proxy is reachable (ADR 0210).
    const CONSOLE_DEV_SIGN_IN = config.CONSOLE_DEV_SIGN_IN ?? false;
    // Moving the control plane to another port moves the address it is reached at, too.
    const CONTROL_PLANE_URL = config.CONTROL_PLANE_URL ?? `http://127.0.0.1:${config.CONTROL_PLANE_PORT}`;
    return {
      ...config,
      NODE_ENV,
      CONSOLE_DEV_SIGN_IN,
      CONTROL_PLANE_URL,
      SIGNING_JWKS_URL: config.SIGNING_JWKS_URL ?? `${CONTROL_PLANE_URL.replace(/\/+$/, '')}${JWKS_PATH}`,
    };
  });

/** Where the control plane publishes the public keys of its key ring. */
export const JWKS_PATH = '/.well-known/jwks.json';

export type AppConfig = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses the environment; throws a ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  const known = Object.fromEntries(Object.keys(configFields.shape).map((key) => [key, env[key] === '' ? undefined : env[key]]));
  const parsed = configSchema.safeParse(known);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.') || '(config)'}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

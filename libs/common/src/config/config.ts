import { z } from 'zod';

/**
 * The one typed configuration of every process. Nothing else reads process.env: apps
 * receive an AppConfig through the AppConfigModule, scripts call loadConfig().
 * Defaults work with the services on a developer machine; production must set secrets.
 */
const port = z.coerce.number().int().min(1).max(65535);
const url = (protocols: string[]) =>
  z.string().refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    },
    `must be a URL with protocol ${protocols.join(' or ')}`,
  );
const list = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean),
);

const bool = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

const DEV_SECRET = 'dev-only-secret-change-me-0123456789abcdef';

export const configSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    DATABASE_URL: url(['postgres:', 'postgresql:']).default('postgresql://postgres@127.0.0.1:5432/capability_control_plane'),
    REDIS_URL: url(['redis:', 'rediss:']).default('redis://127.0.0.1:6379'),
    REDIS_KEY_PREFIX: z
      .string()
      .regex(/^[a-z0-9:_-]*$/, 'lowercase letters, digits, ":", "_" and "-" only')
      .default('cp:'),
    /** Interface every app listens on (0.0.0.0 in containers). */
    HOST: z.string().default('127.0.0.1'),
    CONTROL_PLANE_PORT: port.default(3000),
    WORKER_PORT: port.default(3001),
    AGENT_NODE_PORT: port.default(3002),
    CONTROL_PLANE_URL: url(['http:', 'https:']).default('http://127.0.0.1:3000'),
    /** Admin and node tokens: HS256 with JWT_SECRET, and/or RS256/ES256 with keys from a JWKS file or URL. */
    JWT_ALGORITHMS: list.pipe(z.array(z.enum(['HS256', 'RS256', 'ES256'])).min(1)).default(['HS256']),
    JWT_SECRET: z.string().min(32, 'must be at least 32 characters').default(DEV_SECRET),
    JWT_JWKS_FILE: z.string().optional(),
    JWT_JWKS_URL: url(['http:', 'https:']).optional(),
    JWT_ISSUER: z.string().min(1).default('capability-control-plane'),
    JWT_AUDIENCE: z.string().min(1).default('capability-control-plane'),
    /** Tokens that partner agents present to agent nodes. */
    A2A_JWT_ISSUER: z.string().min(1).default('capability-control-plane'),
    A2A_JWT_AUDIENCE: z.string().min(1).default('a2a-agents'),
    MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
    /** Admin GraphQL API: limits per operation, and where the code-first schema is written (unset: the committed file, except in test/production where it stays in memory). */
    GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(2).default(10),
    GRAPHQL_MAX_COMPLEXITY: z.coerce.number().int().min(10).default(5000),
    GRAPHQL_SCHEMA_FILE: z.string().optional(),
    /** Agent node settings. */
    AGENT_ID: z
      .string()
      .regex(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/, 'must be an agent slug')
      .default('finance-agent'),
    NODE_ID: z.string().min(1).optional(),
    NODE_CACHE_DIR: z.string().default('.cache/agent-node'),
    NODE_POLL_INTERVAL_MS: z.coerce.number().int().min(100).default(30_000),
    /** How often an agent node closes a usage window and reports it. */
    USAGE_FLUSH_INTERVAL_MS: z.coerce.number().int().min(100).default(60_000),
    NODE_TOKEN: z.string().optional(),
    /** Semantic router (ADR 0093): an OpenAI-compatible embeddings API; unset = the lexical router only. */
    EMBEDDINGS_URL: url(['http:', 'https:']).optional(),
    EMBEDDINGS_MODEL: z.string().min(1).default('text-embedding-3-small'),
    EMBEDDINGS_API_KEY: z.string().min(1).optional(),
    /** Past this the lexical router decides for that message. */
    EMBEDDINGS_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(800),
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
  })
  .superRefine((config, ctx) => {
    if (config.USAGE_BATCH_RETENTION_DAYS <= config.RETIREMENT_WINDOW_DAYS) {
      ctx.addIssue({
        code: 'custom',
        path: ['USAGE_BATCH_RETENTION_DAYS'],
        message: `must be more than RETIREMENT_WINDOW_DAYS (${config.RETIREMENT_WINDOW_DAYS}): retirement reads that much usage`,
      });
    }
    if (config.NODE_ENV === 'production' && config.JWT_SECRET === DEV_SECRET && config.JWT_ALGORITHMS.includes('HS256')) {
      ctx.addIssue({ code: 'custom', path: ['JWT_SECRET'], message: 'must be set in production (the default is for development only)' });
    }
  });

export type AppConfig = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses the environment; throws a ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  const known = Object.fromEntries(Object.keys(configSchema.shape).map((key) => [key, env[key] === '' ? undefined : env[key]]));
  const parsed = configSchema.safeParse(known);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.') || '(config)'}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

import { loadConfig, type AppConfig } from '@cp/common';

/** The config a test process uses: defaults plus what the suite overrides (never process.env). */
export function testConfig(overrides: Record<string, string> = {}): AppConfig {
  // Metrics listeners on ephemeral ports: suites run in parallel and beside `npm start`.
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    CONTROL_PLANE_METRICS_PORT: '0',
    WORKER_METRICS_PORT: '0',
    AGENT_NODE_METRICS_PORT: '0',
    // Suites that are not about approvals apply without a second admin (ADR 0300); approval suites set the kinds.
    APPROVAL_DEFAULT_KINDS: '',
    ...overrides,
  });
}

import { loadConfig, type AppConfig } from '@cp/common';

/** The config a test process uses: defaults plus what the suite overrides (never process.env). */
export function testConfig(overrides: Record<string, string> = {}): AppConfig {
  return loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...overrides });
}

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './config';

describe('loadConfig', () => {
  it('has defaults that work with the local services', () => {
    const config = loadConfig({});
    expect(config.DATABASE_URL).toBe('postgresql://postgres@127.0.0.1:5432/capability_control_plane');
    expect(config.REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(config.CONTROL_PLANE_PORT).toBe(3000);
    expect(config.JWT_ALGORITHMS).toEqual(['HS256']);
  });

  it('names every bad variable', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x', CONTROL_PLANE_PORT: '99999', JWT_ALGORITHMS: 'none' })).toThrow(ConfigError);
    try {
      loadConfig({ DATABASE_URL: 'mysql://x', CONTROL_PLANE_PORT: '99999', JWT_ALGORITHMS: 'none' });
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toMatch(/DATABASE_URL: must be a URL with protocol postgres: or postgresql:/);
      expect(message).toMatch(/CONTROL_PLANE_PORT:/);
      expect(message).toMatch(/JWT_ALGORITHMS/);
    }
  });

  it('refuses the development JWT secret in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET: must be set in production/);
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40) }).NODE_ENV).toBe('production');
  });

  it('refuses a usage-batch retention that does not outlast the retirement window', () => {
    expect(() => loadConfig({ USAGE_BATCH_RETENTION_DAYS: '30' })).toThrow(
      /USAGE_BATCH_RETENTION_DAYS: must be more than RETIREMENT_WINDOW_DAYS \(30\)/,
    );
    expect(loadConfig({ USAGE_BATCH_RETENTION_DAYS: '31' }).USAGE_BATCH_RETENTION_DAYS).toBe(31);
  });

  it('takes Redis Cluster seed nodes as host:port and refuses anything else, naming the variable', () => {
    expect(loadConfig({}).REDIS_CLUSTER_NODES).toBeUndefined();
    expect(loadConfig({ REDIS_CLUSTER_NODES: ' redis-1:7000, 10.0.0.2:7001 ' }).REDIS_CLUSTER_NODES).toEqual([
      'redis-1:7000',
      '10.0.0.2:7001',
    ]);
    for (const bad of [
      'redis-1',
      'redis-1:0',
      'redis-1:65536',
      'redis://redis-1:7000',
      'a b:7000',
      'h:7000,{tag}:7001',
      ',',
      `${'h:1,'.repeat(101)}`,
    ]) {
      expect(() => loadConfig({ REDIS_CLUSTER_NODES: bad })).toThrow(/REDIS_CLUSTER_NODES/);
    }
  });

  it('takes SYNC_PUSH_DELTA_MAX_LENGTH from 0 (off) to 1 MiB and refuses anything else, naming the variable', () => {
    expect(loadConfig({}).SYNC_PUSH_DELTA_MAX_LENGTH).toBe(64 * 1024);
    expect(loadConfig({ SYNC_PUSH_DELTA_MAX_LENGTH: '0' }).SYNC_PUSH_DELTA_MAX_LENGTH).toBe(0);
    expect(loadConfig({ SYNC_PUSH_DELTA_MAX_LENGTH: String(1024 * 1024) }).SYNC_PUSH_DELTA_MAX_LENGTH).toBe(1024 * 1024);
    for (const bad of ['-1', '1.5', 'lots', String(1024 * 1024 + 1), '1e400', '9'.repeat(5000)]) {
      expect(() => loadConfig({ SYNC_PUSH_DELTA_MAX_LENGTH: bad })).toThrow(/SYNC_PUSH_DELTA_MAX_LENGTH/);
    }
  });

  it('takes CLARIFICATION_AUTO_PROMOTE_AFTER as a whole number 0–1000 in digits and refuses anything else, naming the variable', () => {
    expect(loadConfig({}).CLARIFICATION_AUTO_PROMOTE_AFTER).toBe(0);
    // An empty variable is unset like every other (the default, 0: off).
    expect(loadConfig({ CLARIFICATION_AUTO_PROMOTE_AFTER: '' }).CLARIFICATION_AUTO_PROMOTE_AFTER).toBe(0);
    for (const [good, value] of [
      ['0', 0],
      ['1', 1],
      ['3', 3],
      ['1000', 1000],
      ['007', 7],
    ] as const) {
      expect(loadConfig({ CLARIFICATION_AUTO_PROMOTE_AFTER: good }).CLARIFICATION_AUTO_PROMOTE_AFTER).toBe(value);
    }
    refusesHostileWholeNumbers('CLARIFICATION_AUTO_PROMOTE_AFTER', '1001', 'must be a whole number from 0 to 1000');
  });

  it('takes A2A_STREAM_REMOTE_AFTER_MS as a whole number 0–10000 in digits (ADR 0380) and refuses anything else, naming the variable', () => {
    expect(loadConfig({}).A2A_STREAM_REMOTE_AFTER_MS).toBe(100);
    expect(loadConfig({ A2A_STREAM_REMOTE_AFTER_MS: '0' }).A2A_STREAM_REMOTE_AFTER_MS).toBe(0);
    expect(loadConfig({ A2A_STREAM_REMOTE_AFTER_MS: '10000' }).A2A_STREAM_REMOTE_AFTER_MS).toBe(10_000);
    refusesHostileWholeNumbers('A2A_STREAM_REMOTE_AFTER_MS', '10001', 'must be a whole number from 0 to 10000');
  });

  it('takes A2A_SEND_STORE_AFTER_MS as a whole number 0–10000 in digits (ADR 0397) and refuses anything else, naming the variable', () => {
    expect(loadConfig({}).A2A_SEND_STORE_AFTER_MS).toBe(100);
    expect(loadConfig({ A2A_SEND_STORE_AFTER_MS: '0' }).A2A_SEND_STORE_AFTER_MS).toBe(0);
    expect(loadConfig({ A2A_SEND_STORE_AFTER_MS: '10000' }).A2A_SEND_STORE_AFTER_MS).toBe(10_000);
    refusesHostileWholeNumbers('A2A_SEND_STORE_AFTER_MS', '10001', 'must be a whole number from 0 to 10000');
  });

  it('takes A2A_STREAM_FIRST_EVENT as early (the default) or stored (ADR 0396) and refuses anything else, naming the variable', () => {
    expect(loadConfig({}).A2A_STREAM_FIRST_EVENT).toBe('early');
    expect(loadConfig({ A2A_STREAM_FIRST_EVENT: 'stored' }).A2A_STREAM_FIRST_EVENT).toBe('stored');
    for (const bad of ['Early', 'STORED', ' early', 'early ', 'true', '1', 'early,stored', 'x'.repeat(10_000), '\u0000early', 'stored\n']) {
      let message = '';
      try {
        loadConfig({ A2A_STREAM_FIRST_EVENT: bad });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/A2A_STREAM_FIRST_EVENT/);
      // The refusal names the variable and the values it takes, never echoes a huge value back.
      expect(message).toMatch(/early.*stored|stored.*early/);
      expect(message.length).toBeLessThan(400);
    }
  });

  it('bounds the stream guards (ADR 0205): the anonymous pool at most half the node, an owner at most the node, naming the variable', () => {
    const c = loadConfig({});
    expect([c.A2A_MAX_STREAMS, c.A2A_MAX_ANONYMOUS_STREAMS, c.A2A_MAX_STREAMS_PER_OWNER, c.A2A_MAX_STREAMS_PER_TASK]).toEqual([
      2000, 200, 200, 10,
    ]);
    expect(
      loadConfig({ A2A_MAX_STREAMS: '10', A2A_MAX_ANONYMOUS_STREAMS: '5', A2A_MAX_STREAMS_PER_OWNER: '10' }).A2A_MAX_ANONYMOUS_STREAMS,
    ).toBe(5);
    expect(loadConfig({ A2A_MAX_ANONYMOUS_STREAMS: '0' }).A2A_MAX_ANONYMOUS_STREAMS).toBe(0);
    expect(() => loadConfig({ A2A_MAX_STREAMS: '10', A2A_MAX_ANONYMOUS_STREAMS: '6', A2A_MAX_STREAMS_PER_OWNER: '5' })).toThrow(
      /A2A_MAX_ANONYMOUS_STREAMS: must be at most half of A2A_MAX_STREAMS/,
    );
    expect(() => loadConfig({ A2A_MAX_STREAMS: '10', A2A_MAX_ANONYMOUS_STREAMS: '1', A2A_MAX_STREAMS_PER_OWNER: '11' })).toThrow(
      /A2A_MAX_STREAMS_PER_OWNER/,
    );
    for (const [name, bad] of [
      ['A2A_STREAM_IDLE_TIMEOUT_MS', '99'],
      ['A2A_STREAM_MAX_LIFETIME_MS', '1e12'],
      ['A2A_STREAM_BUFFER_MAX_BYTES', '1024'],
      ['A2A_MAX_STREAMS_PER_TASK', '0'],
    ]) {
      expect(() => loadConfig({ [name]: bad })).toThrow(new RegExp(name));
    }
  });

  it('derives CONTROL_PLANE_URL (and the JWKS URL) from CONTROL_PLANE_PORT unless it is set', () => {
    const moved = loadConfig({ CONTROL_PLANE_PORT: '4100' });
    expect(moved.CONTROL_PLANE_URL).toBe('http://127.0.0.1:4100');
    expect(moved.SIGNING_JWKS_URL).toBe('http://127.0.0.1:4100/.well-known/jwks.json');
    expect(loadConfig({}).CONTROL_PLANE_URL).toBe('http://127.0.0.1:3000');
    const explicit = loadConfig({ CONTROL_PLANE_PORT: '4100', CONTROL_PLANE_URL: 'https://cp.example.com' });
    expect(explicit.CONTROL_PLANE_URL).toBe('https://cp.example.com');
    expect(explicit.SIGNING_JWKS_URL).toBe('https://cp.example.com/.well-known/jwks.json');
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ REDIS_URL: '' }).REDIS_URL).toBe('redis://127.0.0.1:6379');
  });

  it('stops a process at boot with a message naming the variable', () => {
    const script = `require('tsx/cjs'); require(${JSON.stringify(join(__dirname, 'config.provider.ts'))}).loadConfigOrExit();`;
    const result = spawnSync(process.execPath, ['-e', script], { env: { ...process.env, REDIS_URL: 'http://nope' }, encoding: 'utf8' });
    expect(result.status).toBe(78);
    expect(result.stderr).toMatch(/REDIS_URL: must be a URL with protocol redis: or rediss:/);
    const hex = spawnSync(process.execPath, ['-e', script], {
      env: { ...process.env, CLARIFICATION_AUTO_PROMOTE_AFTER: '0x10' },
      encoding: 'utf8',
    });
    expect(hex.status).toBe(78);
    expect(hex.stderr).toMatch(/CLARIFICATION_AUTO_PROMOTE_AFTER: must be a whole number from 0 to 1000/);
  });
});

/** Every form Number() reads that is not plain digits in range: refused, naming the variable and never echoing the value. */
function refusesHostileWholeNumbers(variable: string, tooBig: string, expected: string): void {
  const hostile = [
    '-1',
    '-0',
    tooBig,
    '1e3',
    '1E2',
    '0x10',
    '0o7',
    '0b11',
    '1.5',
    '3.0',
    '+3',
    ' ',
    ' 3',
    '3 ',
    '\t3\n',
    '3\u00003',
    '\u0000',
    '3\u001b[2J',
    '\u00a03',
    '３',
    '٣',
    'Infinity',
    'NaN',
    'three',
    '1_000',
    '1,000',
    '9'.repeat(400),
    '1'.repeat(100_000),
  ];
  for (const bad of hostile) {
    let message = '';
    try {
      loadConfig({ [variable]: bad });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    expect({ bad, message }).toEqual({ bad, message: expect.stringContaining(`${variable}: ${expected}`) });
    // The refusal names the variable, not the hostile value (no control characters or 100 KB echoed into a log).
    expect(message.length).toBeLessThan(200);
  }
}

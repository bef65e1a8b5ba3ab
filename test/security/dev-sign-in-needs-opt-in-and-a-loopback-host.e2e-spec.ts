/**
 * Issue 27, item 4: the development sign-in (POST /console/dev-sign-in mints a platform-admin token)
 * is off unless CONSOLE_DEV_SIGN_IN=true asks for it, even with NODE_ENV unset on a loopback HOST
 * and a real JWT_SECRET (a common layout behind a reverse proxy on the same host); and when on, it
 * refuses what a DNS-rebinding page or a proxied request sends: a non-loopback Host, a cross-site
 * Origin, proxy headers. `npm start` still opts in for the demo (tools/start-env.cjs).
 */
import http from 'node:http';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig, type AppConfig } from '@cp/common';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from '../support/boot';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

// The launcher is plain CommonJS.
const { startEnv } = require('../../tools/start-env.cjs') as { startEnv: (env: Record<string, string>) => Record<string, string> };

jest.setTimeout(180_000);
const STRONG = 'a-real-deployment-secret-0123456789-abcdef';

/** A raw POST, so Host can be whatever a rebinding browser would send. */
function post(url: string, headers: Record<string, string>, body = '{"kind":"admin"}'): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the development sign-in needs an opt-in, a loopback Host and a same-machine Origin', () => {
  let db: TestDatabase;
  const apps: NestFastifyApplication[] = [];
  let defaultUrl: string;
  let optedInUrl: string;

  /** What a developer machine without NODE_ENV, with a real secret, loads (plus this suite's database). */
  const env = (extra: Record<string, string> = {}): AppConfig =>
    loadConfig({
      JWT_SECRET: STRONG,
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: `test:sec-devsignin:${process.pid}:`,
      LOG_LEVEL: 'silent',
      CONTROL_PLANE_METRICS_PORT: '0',
      ...extra,
    });

  beforeAll(async () => {
    db = await createTestDatabase('sec_dev_sign_in');
    const plain = await bootApp(AppModule, env());
    const optedIn = await bootApp(AppModule, env({ CONSOLE_DEV_SIGN_IN: 'true' }));
    apps.push(plain.app, optedIn.app);
    defaultUrl = `${plain.url}/console/dev-sign-in`;
    optedInUrl = `${optedIn.url}/console/dev-sign-in`;
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
    await db?.drop();
  });

  it('is off by default with NODE_ENV unset, a loopback HOST and a real secret, whoever asks', async () => {
    expect(env().NODE_ENV).toBe('development');
    const port = new URL(defaultUrl).port;
    for (const headers of [
      {} as Record<string, string>,
      { host: `rebind-1.attacker.example:${port}`, origin: `http://rebind-1.attacker.example:${port}` },
    ]) {
      const res = await post(defaultUrl, headers);
      expect(res.status).toBe(404);
      expect(res.text).toMatch(/CONSOLE_DEV_SIGN_IN=true/);
      expect(res.text).not.toMatch(/eyJ/);
    }
  });

  it('opted in, refuses a DNS-rebinding request, a cross-site Origin and a proxied request, minting nothing', async () => {
    const port = new URL(optedInUrl).port;
    const refused: [Record<string, string>, RegExp][] = [
      [{ host: `rebind-1.attacker.example:${port}`, origin: `http://rebind-1.attacker.example:${port}` }, /loopback Host/],
      [{ host: `127.0.0.1.nip.example:${port}` }, /loopback Host/],
      [{ host: `127.0.0.1:${port}`, origin: 'https://attacker.example' }, /cross-site Origin/],
      [{ host: `127.0.0.1:${port}`, origin: 'null' }, /cross-site Origin/],
      [{ host: `127.0.0.1:${port}`, 'sec-fetch-site': 'cross-site' }, /Sec-Fetch-Site/],
      [{ host: `127.0.0.1:${port}`, 'x-forwarded-for': '203.0.113.9' }, /proxy/],
      [{ host: `127.0.0.1:${port}`, forwarded: 'for=203.0.113.9;host=console.example.com' }, /proxy/],
    ];
    for (const [headers, reason] of refused) {
      const res = await post(optedInUrl, headers);
      expect([headers, res.status]).toEqual([headers, 403]);
      expect(res.text).toMatch(reason);
      expect(res.text).not.toMatch(/eyJ/);
    }
  });

  it('opted in, answers the console on this machine (loopback Host, same-machine Origin or none)', async () => {
    const port = new URL(optedInUrl).port;
    for (const headers of [
      {} as Record<string, string>,
      { origin: `http://127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin' },
      { host: `localhost:${port}` },
    ]) {
      const res = await post(optedInUrl, headers);
      expect([headers, res.status]).toEqual([headers, 200]);
      expect(JSON.parse(res.text)).toMatchObject({ token: expect.stringMatching(/^eyJ/) });
    }
  });

  it('`npm start` opts the demo in; production and non-loopback HOSTs load without it', () => {
    expect(loadConfig(startEnv({})).CONSOLE_DEV_SIGN_IN).toBe(true);
    expect(loadConfig(startEnv({ JWT_SECRET: STRONG })).CONSOLE_DEV_SIGN_IN).toBe(true);
    expect(loadConfig(startEnv({ CONSOLE_DEV_SIGN_IN: 'false' })).CONSOLE_DEV_SIGN_IN).toBe(false);
    expect(loadConfig(startEnv({ NODE_ENV: 'production', JWT_SECRET: STRONG })).CONSOLE_DEV_SIGN_IN).toBe(false);
    expect(loadConfig(startEnv({ HOST: '0.0.0.0', JWT_SECRET: STRONG })).CONSOLE_DEV_SIGN_IN).toBe(false);
  });
});

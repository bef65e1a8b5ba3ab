import { ConfigError, loadConfig } from '@cp/common';
import { cacheControlFor, consoleCsp, consoleSettings, devSignInRefusal, parseDevSignIn } from './console-settings';

const SECRET = 'a-production-secret-that-is-long-enough-0123456789';

describe('console settings', () => {
  it('hashed Vite assets are immutable; index.html and anything else is revalidated', () => {
    expect(cacheControlFor('assets/index-CtAwggUA.js')).toBe('public, max-age=31536000, immutable');
    expect(cacheControlFor('assets/ExplorerScreen-C57Epus9.css')).toBe('public, max-age=31536000, immutable');
    expect(cacheControlFor('index.html')).toBe('no-cache');
    expect(cacheControlFor('assets/logo.svg')).toBe('no-cache');
    expect(cacheControlFor('assets/nested/index-CtAwggUA.js')).toBe('no-cache');
    expect(cacheControlFor('favicon-CtAwggUA.ico')).toBe('no-cache');
  });

  it('the CSP allows only same-origin scripts and adds the OpenID provider to connect-src', () => {
    const plain = consoleCsp({ CONSOLE_OIDC_ISSUER: undefined });
    expect(plain).toContain("script-src 'self'");
    expect(plain).toContain("connect-src 'self';");
    expect(plain).toContain("frame-ancestors 'none'");
    expect(plain).not.toContain('unsafe-eval');
    expect(consoleCsp({ CONSOLE_OIDC_ISSUER: 'https://idp.example.com/realms/x' })).toContain(
      "connect-src 'self' https://idp.example.com;",
    );
  });

  it('the development sign-in is off unless CONSOLE_DEV_SIGN_IN=true asks for it (ADR 0210)', () => {
    expect(consoleSettings(loadConfig({})).devSignIn).toBe(false);
    expect(consoleSettings(loadConfig({ NODE_ENV: 'development' })).devSignIn).toBe(false);
    expect(consoleSettings(loadConfig({ NODE_ENV: 'test' })).devSignIn).toBe(false);
    expect(consoleSettings(loadConfig({ JWT_SECRET: SECRET })).devSignIn).toBe(false);
    expect(consoleSettings(loadConfig({ CONSOLE_DEV_SIGN_IN: 'true' })).devSignIn).toBe(true);
    expect(consoleSettings(loadConfig({ NODE_ENV: 'development', CONSOLE_DEV_SIGN_IN: 'true' })).devSignIn).toBe(true);
    expect(consoleSettings(loadConfig({ NODE_ENV: 'production', JWT_SECRET: SECRET })).devSignIn).toBe(false);
    expect(consoleSettings(loadConfig({ HOST: '0.0.0.0', JWT_SECRET: SECRET })).devSignIn).toBe(false);
    expect(consoleSettings(loadConfig({ NODE_ENV: 'development', CONSOLE_DEV_SIGN_IN: 'false' })).devSignIn).toBe(false);
  });

  it('refuses the development sign-in where it would be a back door, naming the variable', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', JWT_SECRET: SECRET, CONSOLE_DEV_SIGN_IN: 'true' })).toThrow(
      /CONSOLE_DEV_SIGN_IN: the development sign-in is refused in production/,
    );
    expect(() => loadConfig({ NODE_ENV: 'development', HOST: '0.0.0.0', JWT_SECRET: SECRET, CONSOLE_DEV_SIGN_IN: 'true' })).toThrow(
      /CONSOLE_DEV_SIGN_IN: the development sign-in is refused when HOST \(0\.0\.0\.0\) is not a loopback address/,
    );
    expect(() =>
      loadConfig({ NODE_ENV: 'development', JWT_ALGORITHMS: 'RS256', JWT_JWKS_FILE: 'x.json', CONSOLE_DEV_SIGN_IN: 'true' }),
    ).toThrow(/needs HS256/);
  });

  it('OIDC issuer and client id come together, and are what config.json tells the browser', () => {
    expect(() => loadConfig({ CONSOLE_OIDC_ISSUER: 'https://idp.example.com' })).toThrow(ConfigError);
    expect(() => loadConfig({ CONSOLE_OIDC_CLIENT_ID: 'console' })).toThrow(/CONSOLE_OIDC_ISSUER/);
    expect(() => loadConfig({ CONSOLE_OIDC_ISSUER: 'javascript:alert(1)', CONSOLE_OIDC_CLIENT_ID: 'c' })).toThrow(/CONSOLE_OIDC_ISSUER/);
    const config = loadConfig({
      CONSOLE_OIDC_ISSUER: 'https://idp.example.com',
      CONSOLE_OIDC_CLIENT_ID: 'console',
      CONSOLE_OIDC_RESOURCE: 'urn:cp:admin',
    });
    expect(consoleSettings(config).oidc).toEqual({
      issuer: 'https://idp.example.com',
      clientId: 'console',
      scope: 'openid profile',
      resource: 'urn:cp:admin',
    });
    expect(JSON.stringify(consoleSettings(config))).not.toContain(config.JWT_SECRET);
  });

  it('the console timeout and spinner delay have defaults and validated ranges, and reach config.json', () => {
    expect(consoleSettings(loadConfig({}))).toMatchObject({ apiTimeoutMs: 15_000, spinnerDelayMs: 300 });
    expect(consoleSettings(loadConfig({ CONSOLE_API_TIMEOUT_MS: '2000', CONSOLE_SPINNER_DELAY_MS: '0' }))).toMatchObject({
      apiTimeoutMs: 2000,
      spinnerDelayMs: 0,
    });
    expect(() => loadConfig({ CONSOLE_API_TIMEOUT_MS: '10' })).toThrow(/CONSOLE_API_TIMEOUT_MS/);
    expect(() => loadConfig({ CONSOLE_API_TIMEOUT_MS: '999999999' })).toThrow(/CONSOLE_API_TIMEOUT_MS/);
    expect(() => loadConfig({ CONSOLE_SPINNER_DELAY_MS: '-1' })).toThrow(/CONSOLE_SPINNER_DELAY_MS/);
  });

  it('parses the development sign-in body strictly', () => {
    expect(parseDevSignIn({ kind: 'admin' })).toEqual({ kind: 'admin' });
    expect(parseDevSignIn({ kind: 'team-admin', team: 'finance-agents-team' })).toEqual({
      kind: 'team-admin',
      team: 'finance-agents-team',
    });
    const refused: unknown[] = [
      null,
      'admin',
      [],
      {},
      { kind: 'platform-admin' },
      { kind: 'admin', roles: ['platform-admin'] },
      { kind: 'team-admin' },
      { kind: 'team-admin', team: 'Finance' },
      { kind: 'team-admin', team: `a${'-b'.repeat(40)}` },
      { kind: 'team-admin', team: ['finance-agents-team'] },
      { kind: 'viewer', team: 'finance-agents-team' },
      { ['x'.repeat(10_000)]: 1, kind: 'admin' },
    ];
    for (const body of refused) expect([body, 'error' in parseDevSignIn(body)]).toEqual([body, true]);
    const long = parseDevSignIn({ ['x'.repeat(10_000)]: 1, kind: 'admin' });
    expect('error' in long && long.error.length).toBeLessThan(100);
  });

  it('answers the development sign-in only for a loopback Host and Origin, never through a proxy (ADR 0210)', () => {
    for (const host of ['127.0.0.1:3000', 'localhost:3000', 'localhost', '[::1]:3000', '127.1.2.3']) {
      expect([host, devSignInRefusal({ host })]).toEqual([host, undefined]);
    }
    expect(devSignInRefusal({ host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3000', 'sec-fetch-site': 'same-origin' })).toBeUndefined();
    expect(devSignInRefusal({ host: '127.0.0.1:3000', origin: 'http://localhost:5173', 'sec-fetch-site': 'same-site' })).toBeUndefined();
    const refused: [Record<string, string | undefined>, RegExp][] = [
      [{}, /loopback Host/],
      [{ host: 'rebind-1.attacker.example:3000' }, /loopback Host/],
      [{ host: 'rebind-1.attacker.example:3000', origin: 'http://rebind-1.attacker.example:3000' }, /loopback Host/],
      [{ host: '127.0.0.1.attacker.example' }, /loopback Host/],
      [{ host: 'localhost.attacker.example:3000' }, /loopback Host/],
      [{ host: '0.0.0.0:3000' }, /loopback Host/],
      [{ host: '10.0.0.5:3000' }, /loopback Host/],
      [{ host: '127.0.0.1:3000@evil.example' }, /loopback Host/],
      [{ host: '127.0.0.1:3000', origin: 'https://attacker.example' }, /cross-site Origin/],
      [{ host: '127.0.0.1:3000', origin: 'null' }, /cross-site Origin/],
      [{ host: '127.0.0.1:3000', origin: 'not a url' }, /cross-site Origin/],
      [{ host: '127.0.0.1:3000', origin: 'http://127.0.0.1.attacker.example' }, /cross-site Origin/],
      [{ host: '127.0.0.1:3000', 'sec-fetch-site': 'cross-site' }, /Sec-Fetch-Site/],
      [{ host: '127.0.0.1:3000', 'x-forwarded-for': '203.0.113.9' }, /proxy/],
      [{ host: '127.0.0.1:3000', forwarded: 'for=203.0.113.9' }, /proxy/],
      [{ host: '127.0.0.1:3000', 'x-forwarded-host': 'console.example.com' }, /proxy/],
      [{ host: '127.0.0.1:3000', 'x-real-ip': '203.0.113.9' }, /proxy/],
    ];
    for (const [headers, reason] of refused) expect([headers, devSignInRefusal(headers)]).toEqual([headers, expect.stringMatching(reason)]);
  });
});

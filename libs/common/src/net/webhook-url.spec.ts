import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  invalidAllowEntries,
  parseWebhookUrl,
  resolveAndCheck,
  safeFetch,
  WebhookError,
  WebhookErrorCode,
  type HostResolver,
  type ResolvedAddress,
  type WebhookPolicy,
} from './webhook-url';

/** A resolver standing in for DNS: fixed answers per name, and a count of questions asked. */
function stubResolver(answers: Record<string, string[] | (() => string[])>): HostResolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (host: string): Promise<ResolvedAddress[]> => {
    calls.push(host);
    const entry = answers[host];
    if (!entry) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    const list = typeof entry === 'function' ? entry() : entry;
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}

async function refusal(url: string, policy: WebhookPolicy = {}): Promise<string | undefined> {
  const parsed = parseWebhookUrl(url, policy);
  if (!parsed.ok) return parsed.reason;
  const checked = await resolveAndCheck(parsed.url, policy);
  return checked.ok ? undefined : checked.reason;
}

describe('parseWebhookUrl', () => {
  it.each([
    ['file:///etc/passwd', /scheme "file" is not allowed/],
    ['gopher://example.com/', /scheme "gopher"/],
    ['javascript:alert(1)', /scheme "javascript"/],
    ['ftp://example.com/x', /scheme "ftp"/],
    ['data:text/plain,hi', /scheme "data"/],
    ['https://user:pw@example.com/hook', /credentials/],
    ['https://user@example.com/hook', /credentials/],
    ['not a url', /not a valid absolute URL/],
    ['/relative/path', /not a valid absolute URL/],
    ['', /non-empty string/],
  ])('refuses %s', (raw, reason) => {
    const result = parseWebhookUrl(raw);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(reason);
  });

  it('refuses non-strings and huge URLs', () => {
    expect(parseWebhookUrl(42)).toEqual({ ok: false, reason: expect.stringMatching(/non-empty string/) });
    expect(parseWebhookUrl({ href: 'https://example.com' })).toMatchObject({ ok: false });
    const huge = `https://example.com/${'a'.repeat(5000)}`;
    expect(parseWebhookUrl(huge)).toEqual({ ok: false, reason: 'the webhook URL is longer than 2048 characters' });
    expect(parseWebhookUrl('https://example.com/abc', { maxUrlLength: 10 })).toMatchObject({ ok: false });
  });

  it('accepts http and https URLs', () => {
    const result = parseWebhookUrl('https://hooks.example.com:8443/a2a?x=1');
    expect(result.ok && result.url.host).toBe('hooks.example.com:8443');
    expect(parseWebhookUrl('http://example.com').ok).toBe(true);
  });
});

describe('resolveAndCheck', () => {
  const NEVER = new Set(['linkLocal', 'unspecified']);
  it.each([
    ['http://127.0.0.1/', 'loopback'],
    ['http://127.8.9.10/', 'loopback'],
    ['http://2130706433/', 'loopback'], // decimal form of 127.0.0.1
    ['http://0x7f.1/', 'loopback'],
    ['http://10.1.2.3/', 'private'],
    ['http://172.16.0.1/', 'private'],
    ['http://192.168.1.1/', 'private'],
    ['http://169.254.169.254/latest/meta-data/', 'linkLocal'],
    ['http://100.64.0.1/', 'carrierGradeNat'],
    ['http://0.0.0.0:8080/', 'unspecified'],
    ['http://[::]/', 'unspecified'],
    ['http://[::1]/', 'loopback'],
    ['http://[fc00::1]/', 'uniqueLocal'],
    ['http://[fd12:3456::1]/', 'uniqueLocal'],
    ['http://[fe80::1]/', 'linkLocal'],
    ['http://[::ffff:127.0.0.1]/', 'ipv4Mapped'],
    ['http://[::ffff:a9fe:a9fe]/', 'linkLocal'], // 169.254.169.254, IPv4-mapped
    ['http://224.0.0.1/', 'multicast'],
    // Other spellings of loopback: the URL parser reads each as 127.0.0.1 / ::1 before any check.
    ['http://0177.0.0.1/', 'loopback'], // octal
    ['http://127.1/', 'loopback'], // short form
    ['http://0x7f000001/', 'loopback'], // one hex number
    ['http://127.0.0.1./', 'loopback'], // trailing dot
    ['HTTP://127.0.0.1/', 'loopback'], // upper-case scheme
    ['HtTpS://[0:0:0:0:0:0:0:1]/', 'loopback'],
    ['http://[::ffff:7f00:1]/', 'ipv4Mapped'], // 127.0.0.1, IPv4-mapped in hex
    ['http://[::ffff:0:7f00:1]/', 'rfc6145'], // IPv4-translated
    ['http://[64:ff9b::7f00:1]/', 'rfc6052'], // NAT64 of 127.0.0.1
    ['http://[2002:7f00:1::]/', '6to4'], // 6to4 of 127.0.0.1
    ['http://[::7f00:1]/', 'ipv4Compatible'], // IPv4-compatible (deprecated) form of 127.0.0.1
    ['http://[::10.0.0.1]/', 'ipv4Compatible'],
    ['http://[fd00::1]/', 'uniqueLocal'],
    ['http://[fe80::1234:5678]/', 'linkLocal'],
    ['http://0/', 'unspecified'],
    ['http://0.1.2.3/', 'unspecified'],
    ['http://0251.0376.0251.0376/', 'linkLocal'], // 169.254.169.254 in octal
    ['http://169.254.43518/', 'linkLocal'], // 169.254.169.254, short form
  ])('refuses %s (%s)', async (url, range) => {
    expect(await refusal(url)).toMatch(`(${range}), which is ${NEVER.has(range) ? 'never' : 'not'} allowed`);
  });

  it.each([
    ['http://169.254.169.254/', ['169.254.0.0/16', '169.254.169.254']],
    ['http://[fe80::1]/', ['fe80::/10']],
    ['http://[::ffff:169.254.169.254]/', ['::ffff:0:0/96', '0.0.0.0/0']],
    ['http://[64:ff9b::a9fe:a9fe]/', ['64:ff9b::/96', '::/0']], // NAT64 of 169.254.169.254
    ['http://[2002:a9fe:a9fe::1]/', ['2002::/16', '::/0']], // 6to4 of 169.254.169.254
    ['http://[fd00:ec2::254]/', ['fd00::/8']], // AWS IPv6 metadata
    ['http://100.100.100.200/', ['100.64.0.0/10']], // Alibaba Cloud metadata
    ['http://0.0.0.0/', ['0.0.0.0/0', '0.0.0.0']],
    ['http://[::]/', ['::/0']],
    ['http://[::a9fe:a9fe]/', ['::/0', '::/96']], // IPv4-compatible form of 169.254.169.254
  ])('refuses %s whatever the allow-list says', async (url, allow) => {
    expect(await refusal(url, { allow })).toMatch(/which is never allowed/);
    const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
    const resolve = stubResolver({ 'allowed.example': [host] });
    expect(await refusal('http://allowed.example/', { allow: ['allowed.example', ...allow], resolve })).toMatch(/which is never allowed/);
  });

  it('refuses credentials however they are written, and reads a backslash as the end of the host', async () => {
    for (const url of ['http://evil@127.0.0.1/', 'http://127.0.0.1@evil.example/', 'http://:pw@127.0.0.1/', 'HTTP://user:@hooks.example/'])
      expect([url, await refusal(url)]).toEqual([url, 'the webhook URL must not carry credentials']);
    // WHATWG: `\` ends the authority of an http(s) URL, so the host is evil.example, not 127.0.0.1,
    // and evil.example is judged by what it resolves to.
    const resolve = stubResolver({ 'evil.example': ['127.0.0.1'] });
    const parsed = parseWebhookUrl('http://evil.example\\@127.0.0.1/');
    expect(parsed.ok && parsed.url.hostname).toBe('evil.example');
    expect(await refusal('http://evil.example\\@127.0.0.1/', { resolve })).toMatch(/"evil\.example" resolves to 127\.0\.0\.1 \(loopback\)/);
  });

  it('refuses names (trailing dot or not) whose answers are private in any IPv6 form', async () => {
    const resolve = stubResolver({
      'mapped.example': ['::ffff:127.0.0.1'],
      'compat.example': ['::7f00:1'],
      'ula.example': ['fd12::1'],
      'link.example.': ['fe80::1'],
      'metadata.example.': ['::ffff:169.254.169.254'],
      'dot.example.': ['10.0.0.1'],
    });
    expect(await refusal('http://mapped.example/', { resolve })).toMatch(/ipv4Mapped/);
    expect(await refusal('http://compat.example/', { resolve })).toMatch(/ipv4Compatible/);
    expect(await refusal('http://ula.example/', { resolve })).toMatch(/uniqueLocal/);
    expect(await refusal('http://link.example./', { resolve })).toMatch(/\(linkLocal\), which is never allowed/);
    expect(await refusal('http://metadata.example./', { resolve, allow: ['metadata.example.'] })).toMatch(/which is never allowed/);
    expect(await refusal('http://dot.example./', { resolve })).toMatch(/10\.0\.0\.1 \(private\)/);
    // The real resolver: a trailing-dot localhost is refused, as loopback or (glibc reads /etc/hosts
    // without the dot) as a name that does not resolve: never reached either way.
    expect(await refusal('http://localhost.:9/hook')).toMatch(
      /"localhost\." (resolves to (127\.0\.0\.1|::1) \(loopback\)|does not resolve)/,
    );
  });

  it('does not let a v4 allow-list entry open the IPv4-compatible form of the same address', async () => {
    expect(await refusal('http://[::7f00:1]/', { allow: ['127.0.0.1'] })).toMatch(/ipv4Compatible/);
    expect(await refusal('http://[::7f00:1]/', { allow: ['::7f00:1'] })).toBeUndefined();
  });

  it('accepts a global unicast literal without asking DNS', async () => {
    const resolve = stubResolver({});
    const checked = await resolveAndCheck(new URL('https://93.184.216.34/hook'), { resolve });
    expect(checked).toMatchObject({ ok: true, address: '93.184.216.34', family: 4 });
    expect(resolve.calls).toEqual([]);
  });

  it('refuses a real DNS name that resolves to loopback (localhost, from the system resolver)', async () => {
    expect(await refusal('http://localhost:9/hook')).toMatch(/"localhost" resolves to (127\.0\.0\.1|::1) \(loopback\)/);
  });

  it('refuses names that resolve to private addresses, and names with any private answer', async () => {
    const resolve = stubResolver({
      'evil.example': ['127.0.0.1'],
      'mixed.example': ['93.184.216.34', '10.0.0.5'],
      'metadata.example': ['169.254.169.254'],
      'good.example': ['93.184.216.34', '2606:2800:220:1::1'],
    });
    expect(await refusal('https://evil.example/x', { resolve })).toMatch(/resolves to 127\.0\.0\.1 \(loopback\)/);
    expect(await refusal('https://mixed.example/x', { resolve })).toMatch(/resolves to 10\.0\.0\.5 \(private\)/);
    expect(await refusal('https://metadata.example/x', { resolve })).toMatch(/169\.254\.169\.254 \(linkLocal\)/);
    expect(await refusal('https://good.example/x', { resolve })).toBeUndefined();
    expect(await refusal('https://nowhere.example/x', { resolve })).toBe('the webhook host "nowhere.example" does not resolve (ENOTFOUND)');
  });

  it('lets the allow-list permit a host name, a wildcard, an IP or a CIDR, and nothing more', async () => {
    const resolve = stubResolver({ 'hooks.internal': ['10.0.0.7'], 'a.corp.example': ['10.1.1.1'], 'other.internal': ['10.0.0.8'] });
    expect(await refusal('http://hooks.internal/x', { resolve, allow: ['hooks.internal'] })).toBeUndefined();
    expect(await refusal('http://HOOKS.internal/x', { resolve, allow: ['hooks.internal'] })).toBeUndefined();
    expect(await refusal('http://other.internal/x', { resolve, allow: ['hooks.internal'] })).toMatch(/10\.0\.0\.8 \(private\)/);
    expect(await refusal('http://a.corp.example/x', { resolve, allow: ['*.corp.example'] })).toBeUndefined();
    expect(await refusal('http://127.0.0.1:1/x', { allow: ['127.0.0.1'] })).toBeUndefined();
    expect(await refusal('http://127.0.0.2:1/x', { allow: ['127.0.0.1'] })).toMatch(/loopback/);
    expect(await refusal('http://10.0.0.8/x', { allow: ['10.0.0.0/24'] })).toBeUndefined();
    expect(await refusal('http://10.0.1.8/x', { allow: ['10.0.0.0/24'] })).toMatch(/private/);
    // A v4 CIDR covers the IPv4-mapped v6 form of the same host, and only that host.
    expect(await refusal('http://[::ffff:10.0.0.9]/x', { allow: ['10.0.0.0/24'] })).toBeUndefined();
    expect(await refusal('http://[::ffff:127.0.0.1]/x', { allow: ['10.0.0.0/24'] })).toMatch(/ipv4Mapped/);
    // Garbage in the allow-list permits nothing.
    expect(await refusal('http://127.0.0.1/x', { allow: ['not/a/cidr', '999.1.1.1'] })).toMatch(/loopback/);
  });
});

describe('refusals name the purpose of the call', () => {
  it('says "webhook" unless told what the call is (the gateway and its probe say so)', async () => {
    const resolve = stubResolver({ 'recon.internal': ['10.0.0.5'] });
    expect(await refusal('http://recon.internal/a2a', { resolve })).toBe(
      'the webhook host "recon.internal" resolves to 10.0.0.5 (private), which is not allowed',
    );
    expect(await refusal('http://recon.internal/a2a', { resolve, purpose: 'upstream' })).toBe(
      'the upstream host "recon.internal" resolves to 10.0.0.5 (private), which is not allowed',
    );
    expect(parseWebhookUrl('ftp://x.example/', { purpose: 'upstream card' })).toEqual({
      ok: false,
      reason: 'the upstream card URL scheme "ftp" is not allowed (http or https only)',
    });
    const error = await safeFetch('http://evil@x.example/', {}, { purpose: 'upstream card' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: WebhookErrorCode.Refused, message: 'the upstream card URL must not carry credentials' });
  });
});

describe('invalidAllowEntries', () => {
  it('names entries that are neither host names, IPs nor CIDRs', () => {
    expect(invalidAllowEntries(['hooks.internal', '*.corp.example', '10.0.0.0/8', '::1', 'fd00::/8', '127.0.0.1'])).toEqual([]);
    expect(invalidAllowEntries(['10.0.0.0/99', 'http://x', 'a b', '*', '', 'x'.repeat(300)])).toHaveLength(6);
  });
});

describe('safeFetch', () => {
  type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;
  const servers: http.Server[] = [];
  const received: { url?: string; method?: string; body: string; headers: http.IncomingHttpHeaders }[] = [];

  async function serve(handler: Handler, host = '127.0.0.1'): Promise<string> {
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ url: req.url, method: req.method, body, headers: req.headers });
        handler(req, res, body);
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    return `http://${host}:${(server.address() as AddressInfo).port}`;
  }

  afterEach(async () => {
    received.length = 0;
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve).closeAllConnections())));
  });

  const loopbackAllowed: WebhookPolicy = { allow: ['127.0.0.1'] };

  async function rejection(p: Promise<unknown>): Promise<WebhookError> {
    const error = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WebhookError);
    return error as WebhookError;
  }

  it('posts to an allowed receiver and returns its answer', async () => {
    const base = await serve((_req, res) => res.writeHead(202, { 'x-seen': 'yes' }).end('ok'));
    const response = await safeFetch(
      `${base}/hook`,
      { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } },
      loopbackAllowed,
    );
    expect(response).toMatchObject({ status: 202, url: `${base}/hook` });
    expect(response.body.toString()).toBe('ok');
    expect(received).toEqual([expect.objectContaining({ method: 'POST', url: '/hook', body: '{"a":1}' })]);
    expect(received[0].headers['content-type']).toBe('application/json');
  });

  it('refuses a loopback receiver when nothing allows it, before connecting', async () => {
    const base = await serve((_req, res) => res.end('should not be reached'));
    const error = await rejection(safeFetch(`${base}/hook`, { method: 'POST', body: 'x' }));
    expect(error.code).toBe(WebhookErrorCode.Refused);
    expect(error.retryable).toBe(false);
    expect(received).toEqual([]);
  });

  it('re-checks redirect targets: a redirect to another loopback address or to file: is refused', async () => {
    const target = await serve((_req, res) => res.end('secret'), '127.0.0.2');
    const toLoopback = await serve((_req, res) => res.writeHead(302, { location: `${target}/admin` }).end());
    const error = await rejection(safeFetch(`${toLoopback}/hook`, {}, loopbackAllowed));
    expect(error.code).toBe(WebhookErrorCode.Refused);
    expect(error.message).toMatch(/127\.0\.0\.2 \(loopback\)/);
    expect(received.map((r) => r.url)).toEqual(['/hook']);

    const toFile = await serve((_req, res) => res.writeHead(307, { location: 'file:///etc/passwd' }).end());
    expect((await rejection(safeFetch(toFile, {}, loopbackAllowed))).message).toMatch(/scheme "file"/);
  });

  it('follows allowed redirects up to the bound, then stops', async () => {
    let hops = 0;
    const base: string = await serve((req, res) => {
      hops++;
      if (req.url === '/final') res.end(`done ${req.method}`);
      else res.writeHead(303, { location: req.url === '/a' ? '/b' : '/final' }).end();
    });
    const response = await safeFetch(`${base}/a`, { method: 'POST', body: 'x' }, loopbackAllowed);
    expect(response.body.toString()).toBe('done GET'); // 303 turns the POST into a GET
    expect(response.url).toBe(`${base}/final`);
    hops = 0;
    const error = await rejection(safeFetch(`${base}/a`, {}, { ...loopbackAllowed, maxRedirects: 1 }));
    expect(error.code).toBe(WebhookErrorCode.Redirects);
    expect(hops).toBe(2);
  });

  it("never carries the caller's headers to another origin, and does not bring them back", async () => {
    const secrets = {
      authorization: 'Bearer cred-1',
      'x-a2a-notification-token': 'tok-1',
      'webhook-signature': 'v1,sig',
      'x-api-key': 'key-1',
      cookie: 'session=1',
      'content-type': 'application/json',
    };
    let back = '';
    const other = await serve((req, res) => {
      if (req.url === '/hop') res.writeHead(307, { location: `${back}/final` }).end();
      else res.end('other');
    }, '127.0.0.2');
    back = await serve((req, res) => {
      if (req.url === '/same') res.writeHead(307, { location: '/away' }).end();
      else if (req.url === '/away') res.writeHead(307, { location: `${other}/hop` }).end();
      else res.end('back');
    });
    const response = await safeFetch(
      `${back}/same`,
      { method: 'POST', body: '{}', headers: secrets },
      { allow: ['127.0.0.1', '127.0.0.2'] },
    );
    expect(response.body.toString()).toBe('back');
    expect(received.map((r) => r.url)).toEqual(['/same', '/away', '/hop', '/final']);
    // Same origin: everything the caller sent.
    for (const r of received.slice(0, 2)) expect(r.headers).toMatchObject(secrets);
    // Another origin, and back again: the body and its type only (307 keeps the method).
    for (const r of received.slice(2)) {
      expect([r.url, Object.keys(secrets).filter((h) => h !== 'content-type' && r.headers[h] !== undefined)]).toEqual([r.url, []]);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r).toMatchObject({ method: 'POST', body: '{}' });
    }
  });

  it('with maxRedirects 0 refuses any redirect, saying so, and never contacts its target', async () => {
    const target = await serve((_req, res) => res.end('moved'), '127.0.0.2');
    const base = await serve((_req, res) => res.writeHead(307, { location: `${target}/x` }).end());
    const error = await rejection(safeFetch(base, { method: 'POST', body: 'x' }, { allow: ['127.0.0.1', '127.0.0.2'], maxRedirects: 0 }));
    expect(error.code).toBe(WebhookErrorCode.Redirects);
    expect(error.retryable).toBe(false);
    expect(error.message).toBe('the webhook answered 307 (redirects are not followed)');
    expect(received).toHaveLength(1);
  });

  it('connects to the address it checked, even when DNS answers differently afterwards (rebinding)', async () => {
    const base = await serve((_req, res) => res.end('pinned'));
    const port = new URL(base).port;
    let answer = 0;
    // First answer: an allowed address; every later one: the metadata service.
    const resolve = stubResolver({ 'rebind.example': () => (answer++ === 0 ? ['127.0.0.1'] : ['169.254.169.254']) });
    const response = await safeFetch(`http://rebind.example:${port}/x`, {}, { allow: ['127.0.0.1'], resolve });
    expect(response.body.toString()).toBe('pinned');
    expect(resolve.calls).toEqual(['rebind.example']);
    expect(received[0].headers.host).toBe(`rebind.example:${port}`);
  });

  it('times out, and says the call may be retried', async () => {
    const base = await serve(() => undefined); // never answers
    const error = await rejection(safeFetch(base, {}, { ...loopbackAllowed, timeoutMs: 150 }));
    expect(error.code).toBe(WebhookErrorCode.Timeout);
    expect(error.retryable).toBe(true);
  });

  it('stops reading a response larger than the cap', async () => {
    const base = await serve((_req, res) => res.end('x'.repeat(10_000)));
    const error = await rejection(safeFetch(base, {}, { ...loopbackAllowed, maxResponseBytes: 1000 }));
    expect(error.code).toBe(WebhookErrorCode.TooLarge);
  });

  it('reports a refused connection as a retryable network error', async () => {
    const base = await serve((_req, res) => res.end());
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
    const error = await rejection(safeFetch(base, {}, loopbackAllowed));
    expect(error.code).toBe(WebhookErrorCode.Network);
    expect(error.retryable).toBe(true);
  });
});

/**
 * The manifest's `upstream` block (issue 28, ADR 0230): validated with a clear error at its path,
 * hostile URLs refused before any network call, carried by documents, the bundle's snapshot and
 * execution policy, and never by a card or a router index.
 */
import { buildExtendedCard, buildPublicCard } from './cards';
import { buildExecutionPolicy } from './execution-policy';
import { financeAgentExample } from './fixtures/finance-agent';
import { fromManifestDocument, toManifestDocument } from './manifest-document';
import { buildNodeBundle } from './node-bundle';
import { buildRouterIndex } from './router-index';
import { given } from './testing/given';
import { upstreamAudience, upstreamScopes, upstreamTimeouts, upstreamUrlProblem, type UpstreamSpec } from './upstream';
import { validateManifest } from './validate-manifest';

const seedDoc = () => toManifestDocument(financeAgentExample().manifests[1]);
const UPSTREAM: UpstreamSpec = { url: 'https://zebra-upstream.example.com/a2a/jsonrpc', binding: 'jsonrpc', version: '1.0' };
const errorsOf = (upstream: unknown) => {
  const r = validateManifest({ ...seedDoc(), upstream });
  return r.ok ? [] : r.errors;
};

describe('manifest upstream', () => {
  it('accepts a full block and round-trips it through the document format', () => {
    const upstream = {
      ...UPSTREAM,
      binding: 'http+json',
      version: '0.3',
      timeouts: { connect: 2000, request: 30_000, idle: 10_000 },
      auth: { kind: 'token-exchange', audience: 'https://recon.internal', scopes: ['recon.run'] },
    };
    const r = validateManifest({ ...seedDoc(), upstream });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.manifest.upstream).toEqual(upstream);
    expect(toManifestDocument(r.manifest).upstream).toEqual(upstream);
    expect(fromManifestDocument(toManifestDocument(r.manifest))).toEqual(r.manifest);
  });

  it.each([
    [{ ...UPSTREAM, binding: 'grpc' }, '$.upstream.binding', 'jsonrpc'],
    [{ ...UPSTREAM, version: '2.0' }, '$.upstream.version', '1.0'],
    [{ ...UPSTREAM, timeouts: { connect: 10 } }, '$.upstream.timeouts.connect', 'at least 100'],
    [{ ...UPSTREAM, timeouts: { request: 1e9 } }, '$.upstream.timeouts.request', 'at most'],
    [{ ...UPSTREAM, timeouts: { idle: 1.5 } }, '$.upstream.timeouts.idle', 'whole number'],
    [{ ...UPSTREAM, auth: { kind: 'forward-caller-token' } }, '$.upstream.auth.kind', 'token-exchange'],
    [{ ...UPSTREAM, auth: { kind: 'token-exchange', scopes: ['NOT A SCOPE'] } }, '$.upstream.auth.scopes[0]', 'scope'],
    [{ ...UPSTREAM, headers: { authorization: 'x' } }, '$.upstream', 'headers'],
    [{ binding: 'jsonrpc', version: '1.0' }, '$.upstream.url', ''],
  ])('refuses %j at %s', (upstream, path, words) => {
    const errors = errorsOf(upstream);
    const hit = errors.find((e) => e.path === path || (path === '$.upstream' && e.path.startsWith('$.upstream')));
    expect(hit).toBeDefined();
    expect(`${hit!.path} ${hit!.message}`).toContain(words);
  });

  // Every SSRF form that can be judged without the network; the node re-checks each resolved address.
  it.each([
    ['file:///etc/passwd', 'scheme'],
    ['gopher://internal:70/', 'scheme'],
    ['ftp://files.example.com/', 'scheme'],
    ['javascript:alert(1)', 'scheme'],
    ['https://user:pass@upstream.example.com/', 'credentials'],
    ['http://169.254.169.254/latest/meta-data', 'linkLocal'],
    ['http://[fe80::1]/', 'linkLocal'],
    ['http://[::ffff:169.254.169.254]/', 'linkLocal'],
    ['http://[64:ff9b::a9fe:a9fe]/', 'linkLocal'],
    ['http://[2002:a9fe:a9fe::]/', 'linkLocal'],
    ['http://0.0.0.0:8080/', 'unspecified'],
    ['http://[::]/', 'unspecified'],
    ['http://100.100.100.200/', 'metadata'],
    ['http://[fd00:ec2::254]/', 'metadata'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'metadata'],
    ['http://METADATA.GOOGLE.INTERNAL./', 'metadata'],
    ['http://2852039166/', 'linkLocal'],
    ['http://0xa9fea9fe/', 'linkLocal'],
    ['http://224.0.0.1/', 'multicast'],
    ['https://upstream.example.com/a2a?x=1', 'query'],
    ['https://upstream.example.com/a2a#frag', 'fragment'],
    ['not a url', 'absolute'],
    // The same never-reachable addresses in every other spelling the URL parser reads as them.
    ['http://0251.0376.0251.0376/', 'linkLocal'], // 169.254.169.254 in octal
    ['http://169.254.43518/', 'linkLocal'], // short form
    ['http://0xa9.0xfe.0xa9.0xfe/', 'linkLocal'],
    ['http://[::ffff:a9fe:a9fe]/', 'linkLocal'], // IPv4-mapped, in hex
    ['http://[::a9fe:a9fe]/', 'linkLocal'], // IPv4-compatible (deprecated ::/96)
    ['http://[::169.254.169.254]/', 'linkLocal'],
    ['http://[fe80::1234:5678]/', 'linkLocal'],
    ['http://0/', 'unspecified'],
    ['http://0.0.0.0./', 'unspecified'], // trailing dot
    ['http://[::ffff:0.0.0.0]/', 'unspecified'],
    ['HTTP://169.254.169.254/', 'linkLocal'], // upper-case scheme
    ['FILE:///etc/passwd', 'scheme'],
    ['http://evil@127.0.0.1/', 'credentials'], // userinfo
    ['http://169.254.169.254@evil.example/', 'credentials'],
    ['http://:x@upstream.example.com/', 'credentials'],
    ['http://metadata./', 'metadata'],
    ['http://Instance-Data./latest/', 'metadata'],
  ])('refuses the upstream URL %s', (url, words) => {
    expect(upstreamUrlProblem(url)).toContain(words);
    expect(errorsOf({ ...UPSTREAM, url }).map((e) => e.path)).toEqual(['$.upstream.url']);
  });

  it('refuses an upstream URL longer than 2048 characters', () => {
    expect(upstreamUrlProblem(`https://upstream.example.com/${'a'.repeat(3000)}`)).toContain('at most 2048');
  });

  // Private and loopback addresses are not refused here: the node refuses them unless the agent's
  // upstreamAllow (platform admins) lists them. What matters is that every spelling reaches the node
  // as the one address it denotes, so the allow list and the node's check see the real address.
  it.each([
    ['http://0177.0.0.1:4000/', '127.0.0.1'], // octal
    ['http://127.1:4000/', '127.0.0.1'], // short form
    ['http://2130706433:4000/', '127.0.0.1'], // one decimal number
    ['http://0x7f000001:4000/', '127.0.0.1'], // one hex number
    ['http://127.0.0.1.:4000/', '127.0.0.1'], // trailing dot
    ['HTTP://127.0.0.1:4000/', '127.0.0.1'], // upper-case scheme
    ['http://[::ffff:127.0.0.1]:4000/', '[::ffff:7f00:1]'],
    ['http://[0:0:0:0:0:0:0:1]:4000/', '[::1]'],
    ['http://[FD00::1]:4000/', '[fd00::1]'],
    ['http://012.0.0.1:4000/', '10.0.0.1'],
  ])('takes %s as the private address %s, for the node to check against upstreamAllow', (url, host) => {
    expect(upstreamUrlProblem(url)).toBeUndefined();
    const r = validateManifest({ ...seedDoc(), upstream: { ...UPSTREAM, url } });
    expect(r.ok && new URL(r.manifest.upstream!.url).hostname).toBe(host);
  });

  it('accepts public names and private literals (the node checks private ones against upstreamAllow)', () => {
    for (const url of ['https://recon.example.com/a2a/jsonrpc', 'http://10.1.2.3:9000/', 'http://localhost:4000/a2a', 'http://[::1]:4000/'])
      expect(upstreamUrlProblem(url)).toBeUndefined();
  });

  it('reaches the bundle snapshot and execution policy, never a card or a router index', () => {
    const caller = { principal: 'p', tenant: 'acme', scopes: ['recon.run'] };
    const m = given.manifest({ id: 'gw-one', visibility: 'public', upstream: UPSTREAM });
    const hidden = given.manifest({ id: 'gw-two', visibility: 'extended', handler: 'h.v1.two', upstream: UPSTREAM });
    const snapshot = given.snapshot([m, hidden]);
    const bodies = [
      buildPublicCard(snapshot),
      buildExtendedCard(snapshot, caller),
      buildRouterIndex(snapshot, caller),
      buildRouterIndex(snapshot, null),
    ].map((x) => JSON.stringify(x));
    for (const body of bodies) expect(body).not.toContain('zebra-upstream');
    const bundle = buildNodeBundle(snapshot);
    expect(bundle.publicCard.body).not.toContain('zebra-upstream');
    for (const c of bundle.classes) expect(c.extendedCard.body + JSON.stringify(c.routerIndex)).not.toContain('zebra-upstream');
    expect(buildExecutionPolicy(snapshot).entries.find((e) => e.capabilityId === 'gw-one')?.upstream).toEqual(UPSTREAM);
  });

  it('fills defaults: timeouts, audience = the origin, scopes = what the capability requires', () => {
    expect(upstreamTimeouts(UPSTREAM)).toEqual({ connect: 5000, request: 60_000, idle: 30_000 });
    expect(upstreamAudience(UPSTREAM)).toBe('https://zebra-upstream.example.com');
    expect(upstreamScopes(UPSTREAM, ['recon.run'])).toEqual(['recon.run']);
    expect(upstreamScopes({ auth: { kind: 'token-exchange', scopes: [] } }, ['recon.run'])).toEqual([]);
  });
});

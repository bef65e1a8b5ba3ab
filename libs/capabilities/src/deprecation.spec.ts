import { deprecationFor, deprecationHeaders, deprecationNotice, structuredDate } from './deprecation';
import { buildExecutionPolicy } from './execution-policy';
import { given } from './testing/given';

const links = { publicCard: '/.well-known/agent-card.json', extendedCard: '/a2a/rest/extendedAgentCard' };
const deprecatedAt = '2027-01-10T12:00:00.000Z';
const sunsetAt = '2027-03-01T00:00:00.000Z';
const v2 = given.manifest({ id: 'lookup-v2', visibility: 'public' });
const old = given.manifest({ id: 'lookup', visibility: 'public', state: 'deprecated', replacedBy: 'lookup-v2', deprecatedAt, sunsetAt });
const secretV2 = given.manifest({ id: 'secret-v2', tenants: ['acme'] });
const oldSecret = given.manifest({ id: 'old-secret', state: 'deprecated', replacedBy: 'secret-v2', deprecatedAt });
const snapshot = given.snapshot([v2, old, secretV2, oldSecret]);
const policy = buildExecutionPolicy(snapshot);
const ctx = { previewTenants: [] };

describe('deprecation on the wire', () => {
  it('the execution policy carries the deprecation of deprecated entries only', () => {
    expect(policy.entries.find((e) => e.capabilityId === 'lookup')!.deprecation).toEqual({
      deprecatedAt,
      sunsetAt,
      replacedBy: 'lookup-v2',
    });
    expect(policy.entries.find((e) => e.capabilityId === 'lookup-v2')!.deprecation).toBeUndefined();
  });

  it('Deprecation is an RFC 9651 date of the deprecation time, Sunset an IMF-fixdate, Link names the successor', () => {
    const a = deprecationFor(policy, 'lookup', null, ctx)!;
    expect(deprecationHeaders(a, links, null)).toEqual({
      deprecation: `@${Date.parse(deprecatedAt) / 1000}`,
      sunset: 'Mon, 01 Mar 2027 00:00:00 GMT',
      link: '</.well-known/agent-card.json#skill=lookup-v2>; rel="successor-version"; title="lookup-v2"',
    });
    expect(structuredDate('1970-01-01T00:00:10.900Z')).toBe('@10');
  });

  it('no Sunset before a date is announced, and no headers at all for a capability that is not deprecated', () => {
    const a = deprecationFor(policy, 'old-secret', given.caller({ tenant: 'acme' }), ctx)!;
    expect(Object.keys(deprecationHeaders(a, links, given.caller()))).toEqual(['deprecation', 'link']);
    expect(deprecationFor(policy, 'lookup-v2', null, ctx)).toBeNull();
    expect(deprecationFor(policy, 'no-such-thing', null, ctx)).toBeNull();
  });

  it('never names a replacement the caller may not use (another tenant, anonymous)', () => {
    const other = deprecationFor(policy, 'old-secret', given.caller({ tenant: 'globex' }), ctx)!;
    expect(other.replacedBy).toBeNull();
    expect(deprecationHeaders(other, links, given.caller({ tenant: 'globex' })).link).toBeUndefined();
    expect(deprecationNotice(other).message).not.toContain('secret-v2');
    const acme = deprecationFor(policy, 'old-secret', given.caller({ tenant: 'acme' }), ctx)!;
    expect(deprecationHeaders(acme, links, given.caller({ tenant: 'acme' })).link).toBe(
      '</a2a/rest/extendedAgentCard#skill=secret-v2>; rel="successor-version"; title="secret-v2"',
    );
  });

  it('the task notice names the replacement and the date, or says none is announced', () => {
    expect(deprecationNotice(deprecationFor(policy, 'lookup', null, ctx)!)).toEqual({
      message: `capability "lookup" is deprecated; use "lookup-v2" instead; it will be removed on or after ${sunsetAt}`,
      replacedBy: 'lookup-v2',
      deprecatedAt,
      sunsetAt,
    });
    expect(deprecationNotice(deprecationFor(policy, 'old-secret', given.caller({ tenant: 'acme' }), ctx)!).message).toMatch(
      /no removal date is announced yet$/,
    );
  });
});

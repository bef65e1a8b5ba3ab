import fc from 'fast-check';
import { allowEntryCovers, usableWebhookAllow, webhookAllowEntryProblem, webhookAllowSchema } from './webhook-allow';

describe('webhook allow-list entries (ADR 0211)', () => {
  it.each([
    'hooks.internal',
    'receiver.svc.cluster.local',
    '*.hooks.example.com',
    '*.corp.example',
    '10.0.0.0/8',
    '10.1.2.3',
    '172.16.0.0/12',
    '192.168.10.0/24',
    '100.64.0.0/16',
    '127.0.0.1',
    '127.0.0.0/8',
    '::1',
    'fd12:3456::/32',
    'localhost',
  ])('accepts %s', (entry) => {
    expect(webhookAllowEntryProblem(entry)).toBeUndefined();
  });

  it.each([
    ['0.0.0.0/0', /would allow every address/],
    ['::/0', /would allow every address/],
    ['0.0.0.0', /would allow every address/],
    ['0.0.0.0/1', /would allow every address|not wholly inside/],
    ['128.0.0.0/1', /not wholly inside one private range/],
    ['8.8.8.0/24', /public addresses need no entry/],
    ['10.0.0.0/7', /not wholly inside/],
    ['169.254.169.254', /link-local/],
    ['169.254.0.0/16', /link-local/],
    ['fe80::/10', /link-local/],
    ['fd00::/8', /metadata address fd00:ec2::254/],
    ['fd00:ec2::254', /metadata address/],
    ['fc00::/7', /metadata address/],
    ['100.64.0.0/10', /metadata address 100\.100\.100\.200/],
    ['::ffff:0:0/96', /embeds IPv4/],
    ['::ffff:169.254.169.254', /embeds IPv4/],
    ['64:ff9b::/96', /embeds IPv4/],
    ['2002::/16', /embeds IPv4/],
    ['*.com', /one-label wildcard/],
    ['*', /not a host name/],
    ['*.*', /not a host name/],
    ['*.co.uk', /public suffix/],
    ['*.github.io', /public suffix/],
    ['metadata.google.internal', /metadata service/],
    ['*.metadata.google.internal', /metadata service/],
    ['10.0.0.0/99', /not a host name/],
    ['http://x', /not a host name/],
    ['', /not a host name/],
    ['x'.repeat(300), /not a host name/],
  ])('refuses %s, saying why', (entry, reason) => {
    expect(webhookAllowEntryProblem(entry)).toMatch(reason);
  });

  it('no accepted IP or CIDR holds a link-local or metadata address, or half the internet', () => {
    const forbidden = ['169.254.169.254', '100.100.100.200', '8.8.8.8', '1.1.1.1'];
    fc.assert(
      fc.property(fc.ipV4(), fc.integer({ min: 0, max: 32 }), (ip, prefix) => {
        const entry = `${ip}/${prefix}`;
        if (webhookAllowEntryProblem(entry) !== undefined) return;
        const [a, b] = ip.split('.').map(Number);
        // Accepted: inside a private block, and wide as most the block.
        const inside =
          (a === 10 && prefix >= 8) ||
          (a === 172 && b >= 16 && b < 32 && prefix >= 12) ||
          (a === 192 && b === 168 && prefix >= 16) ||
          (a === 100 && b >= 64 && b < 128 && prefix >= 10) ||
          (a === 127 && prefix >= 8);
        expect([entry, inside]).toEqual([entry, true]);
        for (const f of forbidden) expect([entry, f, usableWebhookAllow([entry, f]).includes(f)]).toEqual([entry, f, false]);
      }),
      { seed: 2712, numRuns: 2000 },
    );
  });

  it('the zod rule names each refused entry by index', () => {
    const result = webhookAllowSchema.safeParse(['10.0.0.0/8', '0.0.0.0/0', '*.com']);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['1', expect.stringMatching(/every address/)],
      ['2', expect.stringMatching(/one-label/)],
    ]);
    expect(webhookAllowSchema.safeParse(Array.from({ length: 51 }, (_, i) => `10.0.0.${i}`)).success).toBe(false);
  });

  it('usable entries drop what a list stored before the rule may hold', () => {
    expect(usableWebhookAllow(['0.0.0.0/0', '127.0.0.1', '169.254.169.254', '*.com'])).toEqual(['127.0.0.1']);
  });

  it.each<[string, string, boolean]>([
    ['10.0.0.0/8', '10.20.0.0/16', true],
    ['10.0.0.0/8', '10.20.0.1', true],
    ['10.20.0.0/16', '10.0.0.0/8', false],
    ['10.20.0.1', '10.20.0.1/32', true],
    ['fd12:3456::/32', 'FD12:3456:0:0::/64', true],
    ['fd12:3456::/32', 'fd12:3457::1', false],
    ['::1', '0:0:0:0:0:0:0:1', true],
    ['127.0.0.1', '::1', false],
    ['Hooks.Internal', 'hooks.internal', true],
    ['*.corp.example', 'hooks.corp.example', true],
    ['*.corp.example', '*.eu.corp.example', true],
    ['*.corp.example', 'corp.example', false],
    ['*.eu.corp.example', '*.corp.example', false],
    ['hooks.internal', '10.0.0.1', false],
    ['10.0.0.0/8', 'not an entry/', false],
  ])('%s covers %s: %s', (outer, inner, covers) => {
    expect(allowEntryCovers(outer, inner)).toBe(covers);
  });
});

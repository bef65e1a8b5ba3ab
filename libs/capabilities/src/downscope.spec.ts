import fc from 'fast-check';
import { downscopedScopes } from './downscope';

describe('downscopedScopes', () => {
  it('keeps only what both the caller and the tool hold', () => {
    expect(downscopedScopes(['recon.run', 'admin.all', 'invoices.read'], ['invoices.read', 'recon.run', 'erp.write'])).toEqual([
      'invoices.read',
      'recon.run',
    ]);
    expect(downscopedScopes([], ['recon.run'])).toEqual([]);
  });

  it('never grants a scope the caller lacks, whatever the tool declares', () => {
    const scope = fc.constantFrom<string>('a', 'b', 'c', 'd', 'e');
    fc.assert(
      fc.property(fc.array(scope), fc.array(scope), (caller, tool) => {
        const out = downscopedScopes(caller, tool);
        expect(out.every((s) => caller.includes(s) && tool.includes(s))).toBe(true);
        expect(out).toEqual([...new Set(out)].sort());
      }),
    );
  });
});

import { extensionsResponseHeader, negotiateExtensions, parseExtensionsHeader } from './negotiate';

const TRACE = 'https://example.com/ext/trace/v1';
const SIGNED = 'https://example.com/ext/signed-receipts/v1';

describe('negotiateExtensions', () => {
  const declared = [{ uri: TRACE }, { uri: SIGNED, required: true }];

  it('activates requested declared extensions, ignores unknown URIs, echoes the active ones', () => {
    const r = negotiateExtensions(`${SIGNED} , https://unknown.example/x/v1,${TRACE}`, declared);
    expect(r).toEqual({ ok: true, active: [SIGNED, TRACE].sort(), ignored: ['https://unknown.example/x/v1'] });
    expect(extensionsResponseHeader(r.ok ? r.active : [])).toBe([SIGNED, TRACE].sort().join(','));
  });

  it('rejects a request that does not activate a required extension, naming it', () => {
    const r = negotiateExtensions(TRACE, declared);
    expect(r).toMatchObject({ ok: false, error: 'ExtensionSupportRequiredError', required: [SIGNED] });
    expect(negotiateExtensions(undefined, declared)).toMatchObject({ ok: false, required: [SIGNED] });
  });

  it('needs nothing when nothing is required, and sends no header when nothing is active', () => {
    expect(negotiateExtensions(undefined, [{ uri: TRACE }])).toEqual({ ok: true, active: [], ignored: [] });
    expect(extensionsResponseHeader([])).toBeUndefined();
  });

  it('parses repeated headers and drops empty items and duplicates', () => {
    expect(parseExtensionsHeader([`${TRACE},`, ` ${TRACE}, ${SIGNED}`])).toEqual([TRACE, SIGNED]);
  });
});

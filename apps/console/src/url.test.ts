import { afterEach, describe, expect, it } from 'vitest';
import { readParam, writeParam } from './url';

afterEach(() => window.history.replaceState(null, '', '/console/'));

describe('state in the URL', () => {
  it('writes and removes one parameter without touching the others or adding history', () => {
    window.history.replaceState(null, '', '/console/caller?agent=finance-agent');
    const length = window.history.length;
    writeParam('tenant', 'acme-partner');
    writeParam('scopes', 'recon.run,invoices.read');
    expect(window.location.pathname).toBe('/console/caller');
    expect(window.location.search).toBe('?agent=finance-agent&tenant=acme-partner&scopes=recon.run%2Cinvoices.read');
    expect(readParam('scopes')).toBe('recon.run,invoices.read');
    writeParam('tenant', '');
    expect(window.location.search).toBe('?agent=finance-agent&scopes=recon.run%2Cinvoices.read');
    expect(window.history.length).toBe(length);
  });

  it('ignores a hostile, oversized parameter', () => {
    window.history.replaceState(null, '', `/console/audit?action=${'x'.repeat(10_000)}`);
    expect(readParam('action')).toBe('');
    expect(readParam('missing')).toBe('');
  });
});

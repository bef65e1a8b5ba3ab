import { financeAgentExample } from '../fixtures/finance-agent';
import { buildRouterIndex } from '../router-index';
import { given } from '../testing/given';
import type { Classifier } from './classifier';
import type { WireMessage, WirePart } from './message';
import { route, type DataShape } from './route';

const finance = financeAgentExample();
const snapshot = given.snapshot(finance.manifests, { agent: finance.agent });
const partnerIndex = buildRouterIndex(snapshot, finance.callers.partner);
const anonIndex = buildRouterIndex(snapshot, null);
const noScopeIndex = buildRouterIndex(snapshot, finance.callers.partnerWithoutScope);

const msg = (parts: WirePart[], extra: Partial<WireMessage> = {}): WireMessage => ({
  messageId: 'm-1',
  role: 'ROLE_USER',
  parts,
  ...extra,
});
const text = (t: string) => msg([{ text: t }]);
const PDF: WirePart = { raw: 'JVBERi0xLjQK', mediaType: 'application/pdf', filename: 'inv.pdf' };

describe('route (seed worked example)', () => {
  it('sends a partner\'s PDF + "reconcile this against the PO" to reconcile-invoice with high confidence', () => {
    const r = route(msg([PDF, { text: 'reconcile this against the PO' }]), finance.callers.partner, partnerIndex);
    expect(r).toMatchObject({
      kind: 'routed',
      layer: 'classifier',
      outputMode: 'application/json',
      entry: { id: 'reconcile-invoice', handler: 'recon.v3.reconcile' },
    });
    expect(r.kind === 'routed' && r.confidence).toBeGreaterThanOrEqual(0.6);
  });

  it('sends a lookup question to invoice-lookup', () => {
    const r = route(text('What is the status of invoice INV-20931?'), finance.callers.partner, partnerIndex);
    expect(r).toMatchObject({ kind: 'routed', layer: 'classifier', entry: { id: 'invoice-lookup' } });
  });

  it('never reaches reconcile-invoice for callers without recon.run: their only candidate is lookup', () => {
    for (const [caller, index] of [
      [null, anonIndex],
      [finance.callers.partnerWithoutScope, noScopeIndex],
    ] as const) {
      const r = route(msg([PDF, { text: 'reconcile this against the PO' }]), caller, index, {
        requestMetadata: { skillId: 'reconcile-invoice' },
      });
      expect(r).toMatchObject({ kind: 'routed', layer: 'only-candidate', entry: { id: 'invoice-lookup' } });
    }
  });
});

describe('route layers', () => {
  it('keeps a message continuing a task on the bound capability, ahead of every other signal', () => {
    const r = route(text('look up invoice INV-1'), finance.callers.partner, partnerIndex, {
      boundCapabilityId: 'reconcile-invoice',
      requestMetadata: { skillId: 'invoice-lookup' },
    });
    expect(r).toMatchObject({ kind: 'routed', layer: 'bound-task', entry: { id: 'reconcile-invoice' } });
  });

  it('answers a bound capability the caller may no longer use without saying whether it exists', () => {
    const revoked = route(text('x'), finance.callers.partnerWithoutScope, noScopeIndex, { boundCapabilityId: 'reconcile-invoice' });
    const invented = route(text('x'), finance.callers.partnerWithoutScope, noScopeIndex, { boundCapabilityId: 'no-such-thing' });
    expect(revoked).toMatchObject({ kind: 'failed', error: 'UnsupportedOperationError', reason: 'capability-unavailable' });
    expect(JSON.stringify(revoked)).toBe(JSON.stringify(invented));
  });

  it('fails with ContentTypeNotSupportedError when no entitled capability accepts the parts', () => {
    const r = route(msg([{ raw: 'AAAA', mediaType: 'image/png' }]), finance.callers.partner, partnerIndex);
    expect(r).toMatchObject({
      kind: 'failed',
      error: 'ContentTypeNotSupportedError',
      reason: 'no-input-mode-fits',
      details: { mediaTypes: 'image/png' },
    });
  });

  it('treats media type parameters and case as irrelevant and honours wildcards', () => {
    const wide = given.manifest({ id: 'anything', visibility: 'public', skill: { inputModes: ['image/*'], outputModes: ['text/plain'] } });
    const idx = buildRouterIndex(given.snapshot([wide]), null);
    expect(route(msg([{ raw: 'AA', mediaType: 'Image/PNG; q=1' }]), null, idx)).toMatchObject({
      kind: 'routed',
      entry: { id: 'anything' },
    });
    expect(route(msg([{ text: 'hi' }]), null, idx)).toMatchObject({ kind: 'failed', error: 'ContentTypeNotSupportedError' });
  });

  it('picks by data shape: the most specific declared shape wins, a tie decides nothing', () => {
    const a = given.manifest({ id: 'lookup', visibility: 'public', handler: 'h.lookup', skill: { inputModes: ['application/json'] } });
    const b = given.manifest({
      id: 'reconcile',
      visibility: 'public',
      handler: 'h.reconcile',
      skill: { inputModes: ['application/json'] },
    });
    const idx = buildRouterIndex(given.snapshot([a, b]), null);
    const shapes = new Map<string, DataShape>([
      ['h.lookup', { keys: ['invoiceNumber'] }],
      ['h.reconcile', { keys: ['invoiceNumber', 'purchaseOrder'] }],
    ]);
    expect(route(msg([{ data: { invoiceNumber: 'INV-1', purchaseOrder: 'PO-7' } }]), null, idx, { shapes })).toMatchObject({
      kind: 'routed',
      layer: 'data-shape',
      entry: { id: 'reconcile' },
    });
    expect(route(msg([{ data: { invoiceNumber: 'INV-1' } }]), null, idx, { shapes })).toMatchObject({
      kind: 'routed',
      layer: 'data-shape',
      entry: { id: 'lookup' },
    });
    const tie = new Map<string, DataShape>([
      ['h.lookup', { keys: ['x'] }],
      ['h.reconcile', { keys: ['x'] }],
    ]);
    expect(route(msg([{ data: { x: 1 } }]), null, idx, { shapes: tie })).toMatchObject({ kind: 'input-required' });
  });

  it('honours a hint naming an entitled fitting capability over the classifier', () => {
    const r = route(text('What is the status of invoice INV-20931?'), finance.callers.partner, partnerIndex, {
      requestMetadata: { skillId: 'reconcile-invoice' },
    });
    expect(r).toMatchObject({ kind: 'routed', layer: 'hint', entry: { id: 'reconcile-invoice' } });
    const viaMessage = route(text('hello'), finance.callers.partner, partnerIndex, {});
    expect(viaMessage.kind).toBe('input-required');
    expect(route({ ...text('hello'), metadata: { skillId: 'invoice-lookup' } }, finance.callers.partner, partnerIndex)).toMatchObject({
      kind: 'routed',
      layer: 'hint',
    });
  });

  it('answers a hint naming a capability the caller may not use exactly like an unknown id', () => {
    const two = [
      given.manifest({ id: 'pub-a', visibility: 'public' }),
      given.manifest({ id: 'pub-b', visibility: 'public' }),
      given.manifest({ id: 'secret', requiresScopes: ['s'] }),
    ];
    const idx = buildRouterIndex(given.snapshot(two), null);
    const secret = route(text('capability'), null, idx, { requestMetadata: { skillId: 'secret' } });
    const unknown = route(text('capability'), null, idx, { requestMetadata: { skillId: 'zzz-unknown' } });
    expect(secret.kind).toBe('input-required');
    expect(JSON.stringify(secret).replace('secret', 'ID')).toBe(JSON.stringify(unknown).replace('zzz-unknown', 'ID'));
  });

  it('asks for clarification below 0.6, listing only entitled candidates', () => {
    const r = route(text('hello there'), finance.callers.partner, partnerIndex);
    expect(r).toMatchObject({ kind: 'input-required', confidence: 0 });
    expect(r.kind === 'input-required' && r.candidates.map((c) => c.id).sort()).toEqual(['invoice-lookup', 'reconcile-invoice']);
    const low: Classifier = { classify: () => ({ id: 'reconcile-invoice', confidence: 0.59 }) };
    const r2 = route(text('reconcile'), finance.callers.partner, partnerIndex, { classifier: low });
    expect(r2).toMatchObject({ kind: 'input-required', candidates: [{ id: 'reconcile-invoice' }, { id: 'invoice-lookup' }] });
    const exactly: Classifier = { classify: () => ({ id: 'reconcile-invoice', confidence: 0.6 }) };
    expect(route(text('x'), finance.callers.partner, partnerIndex, { classifier: exactly })).toMatchObject({
      kind: 'routed',
      entry: { id: 'reconcile-invoice' },
    });
  });

  it('ignores a classifier answer outside the candidates (a model router cannot escape the entitled set)', () => {
    const rogue: Classifier = { classify: () => ({ id: 'admin-wipe', confidence: 1 }) };
    expect(route(text('x'), finance.callers.partner, partnerIndex, { classifier: rogue })).toMatchObject({ kind: 'input-required' });
  });

  it('fails a removed capability named by hint or bound task, naming the replacement', () => {
    const v2 = given.manifest({ id: 'recon-v2', visibility: 'public' });
    const v1 = given.manifest({ id: 'recon-v1', visibility: 'public', state: 'removed', replacedBy: 'recon-v2' });
    const other = given.manifest({ id: 'other', visibility: 'public' });
    const idx = buildRouterIndex(given.snapshot([v1, v2, other]), null);
    const byHint = route(text('x'), null, idx, { requestMetadata: { skillId: 'recon-v1' } });
    expect(byHint).toMatchObject({
      kind: 'failed',
      error: 'UnsupportedOperationError',
      reason: 'capability-removed',
      details: { capabilityId: 'recon-v1', replacedBy: 'recon-v2' },
    });
    expect(byHint.kind === 'failed' && byHint.message).toContain('use "recon-v2" instead');
    expect(route(text('x'), null, idx, { boundCapabilityId: 'recon-v1' })).toMatchObject({
      kind: 'failed',
      reason: 'capability-removed',
      details: { replacedBy: 'recon-v2' },
    });
  });

  it('routes a deprecated capability with a notice naming the replacement', () => {
    const v2 = given.manifest({ id: 'recon-v2', visibility: 'public' });
    const v1 = given.manifest({
      id: 'recon-v1',
      visibility: 'public',
      state: 'deprecated',
      replacedBy: 'recon-v2',
      deprecationReason: 'new output shape',
    });
    const idx = buildRouterIndex(given.snapshot([v1, v2]), null);
    const r = route(text('x'), null, idx, { requestMetadata: { skillId: 'recon-v1' } });
    expect(r).toMatchObject({ kind: 'routed', entry: { id: 'recon-v1' }, notices: [{ code: 'deprecated', replacedBy: 'recon-v2' }] });
  });

  it('honours acceptedOutputModes, or fails clearly', () => {
    const multi = given.manifest({ id: 'report', visibility: 'public', skill: { outputModes: ['application/json', 'text/csv'] } });
    const idx = buildRouterIndex(given.snapshot([multi]), null);
    expect(route(text('x'), null, idx, { acceptedOutputModes: ['text/csv'] })).toMatchObject({ kind: 'routed', outputMode: 'text/csv' });
    expect(route(text('x'), null, idx, { acceptedOutputModes: ['text/*'] })).toMatchObject({ kind: 'routed', outputMode: 'text/csv' });
    expect(route(text('x'), null, idx, {})).toMatchObject({ kind: 'routed', outputMode: 'application/json' });
    const r = route(text('x'), null, idx, { acceptedOutputModes: ['image/png'] });
    expect(r).toMatchObject({
      kind: 'failed',
      error: 'ContentTypeNotSupportedError',
      reason: 'no-output-mode-fits',
      details: { capabilityId: 'report' },
    });
    expect(r.kind === 'failed' && r.message).toBe('capability "report" produces application/json, text/csv; you accept only image/png');
  });
});

describe('route (explanations, issue 13)', () => {
  it('names the layer, the candidates with scores and why the winner won', () => {
    const r = route(text('What is the status of invoice INV-20931?'), finance.callers.partner, partnerIndex);
    expect(r.kind).toBe('routed');
    if (r.kind !== 'routed') return;
    expect(r.explanation.layer).toBe('classifier');
    expect(r.explanation.candidates.map((c) => c.id)).toEqual(['invoice-lookup', 'reconcile-invoice']);
    expect(r.explanation.candidates[0].score).toBeGreaterThan(r.explanation.candidates[1].score);
    expect(r.explanation.reason).toMatch(/"invoice-lookup" matched .*status/);
    const only = route(text('anything'), null, anonIndex);
    expect(only).toMatchObject({ kind: 'routed', explanation: { layer: 'only-candidate', candidates: [] } });
  });

  it('asks only among the plausible candidates, and explains why it asks', () => {
    const many = given.snapshot([
      given.manifest({ id: 'book-flight', skill: { name: 'Book a flight', description: 'Books a flight.', tags: ['travel'] } }),
      given.manifest({ id: 'book-hotel', skill: { name: 'Book a hotel', description: 'Books a hotel room.', tags: ['travel'] } }),
      given.manifest({ id: 'fx-rate', skill: { name: 'Exchange rates', description: 'Currency rates.', tags: ['finance'] } }),
    ]);
    const index = buildRouterIndex(many, finance.callers.partner);
    const r = route(text('book it'), finance.callers.partner, index);
    expect(r.kind).toBe('input-required');
    if (r.kind !== 'input-required') return;
    expect(r.candidates.map((c) => c.id).sort()).toEqual(['book-flight', 'book-hotel']);
    expect(r.explanation.layer).toBe('clarification');
    expect(r.explanation.reason).toMatch(/generic/);
  });

  it("never explains with a candidate outside the caller's set, even when a classifier names one", () => {
    const set = given.snapshot([
      given.manifest({ id: 'public-a', visibility: 'public', skill: { name: 'Alpha', description: 'Alpha things.', tags: ['a'] } }),
      given.manifest({ id: 'public-b', visibility: 'public', skill: { name: 'Beta', description: 'Beta things.', tags: ['b'] } }),
      given.manifest({
        id: 'secret-c',
        visibility: 'extended',
        requiresScopes: ['recon.run'],
        skill: { name: 'Gamma', description: 'Gamma.', tags: ['c'] },
      }),
    ]);
    const index = buildRouterIndex(set, null);
    const rogue: Classifier = {
      classify: () => ({
        id: 'secret-c',
        confidence: 1,
        ranking: [
          { id: 'secret-c', score: 9 },
          { id: 'public-a', score: 1 },
        ],
        plausible: ['secret-c', 'public-a'],
        reason: 'rogue',
      }),
    };
    const r = route(text('alpha gamma'), null, index, { classifier: rogue });
    expect(r.kind).toBe('input-required');
    expect(JSON.stringify(r)).not.toContain('secret-c');
    expect(r.kind === 'input-required' && r.explanation.candidates).toEqual([{ id: 'public-a', score: 1 }]);
  });
});

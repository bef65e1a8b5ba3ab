/**
 * Issue 31 §1: a clarification is a question a person can answer (≤ 3 choices, best first, by
 * name and one-line description), and a reply naming a choice routes to it; anything else is
 * routed afresh with both messages' text. Hostile replies choose nothing they should not.
 */
import { buildRouterIndex } from '../router-index';
import { given } from '../testing/given';
import type { Classifier } from './classifier';
import { clarificationQuestion, MAX_CHOICES, resolveReply } from './clarification';
import type { WireMessage } from './message';
import { route } from './route';

const pay = given.manifest({
  id: 'vendor-payment',
  visibility: 'public',
  skill: { name: 'Pay a vendor', description: 'Schedules a payment to a supplier for an approved invoice. Needs the amount.' },
});
const lookup = given.manifest({
  id: 'invoice-lookup',
  visibility: 'public',
  skill: { name: 'Look up an invoice', description: 'Finds an invoice by number and returns its status and due date.' },
});
const expense = given.manifest({
  id: 'expense-report',
  visibility: 'public',
  skill: { name: 'File an expense report', description: 'Creates an expense report from receipts for reimbursement.' },
});
const refund = given.manifest({
  id: 'customer-refund',
  visibility: 'public',
  skill: { name: 'Refund a customer', description: 'Issues a refund to a customer for a returned order.' },
});
// Visible only with a scope the caller lacks.
const payroll = given.manifest({
  id: 'payroll-run',
  visibility: 'extended',
  requiresScopes: ['payroll.admin'],
  skill: { name: 'Run payroll', description: 'Runs the monthly payroll for an invoice of salaries.' },
});
const snapshot = given.snapshot([pay, lookup, expense, refund, payroll]);
const caller = { principal: 'u@acme', tenant: 'acme', scopes: [] };
const index = buildRouterIndex(snapshot, caller);
const entry = (id: string) => {
  const e = index.entries.find((x) => x.id === id);
  if (!e) throw new Error(id);
  return e;
};
const offered = [entry('vendor-payment'), entry('invoice-lookup'), entry('expense-report')];
const text = (t: string): WireMessage => ({ messageId: 'm', role: 'ROLE_USER', parts: [{ text: t }] });
// A classifier that is never sure and ranks every candidate: the router must ask.
const unsure: Classifier = {
  classify: (_t, c) => ({ id: c[0]?.id ?? null, confidence: 0.1, ranking: c.map((e, i) => ({ id: e.id, score: 10 - i })) }),
};

describe('clarification question', () => {
  it('offers at most three choices, best first, by name and one-line description, answerable by a person', () => {
    const r = route(text('invoice'), caller, index, { classifier: unsure });
    expect(r.kind).toBe('input-required');
    if (r.kind !== 'input-required') return;
    expect(r.candidates.length).toBe(MAX_CHOICES);
    // Best first: the classifier's ranking order.
    const ranked = index.entries.slice(0, 3);
    expect(r.candidates.map((c) => c.id)).toEqual(ranked.map((e) => e.id));
    expect(r.message).toContain(`1. ${ranked[0].skill.name}:`);
    expect(r.message).toContain(`3. ${ranked[2].skill.name}:`);
    const asked = route(text('pay'), caller, index, {
      classifier: { classify: () => ({ id: null, confidence: 0, plausible: ['vendor-payment'] }) },
    });
    expect(asked.kind === 'input-required' && asked.message).toContain(
      '1. Pay a vendor: Schedules a payment to a supplier for an approved invoice.\n',
    );
    expect(r.message).not.toContain('Needs the amount');
    expect(r.message).not.toMatch(/metadata|skillId|resend/i);
    expect(r.message).toMatch(/number \(1-3\) or a name/);
  });

  it('never names a capability the caller is not entitled to', () => {
    const everything: Classifier = {
      classify: () => ({ id: 'payroll-run', confidence: 0.1, plausible: ['payroll-run', 'vendor-payment'] }),
    };
    const r = route(text('run payroll'), caller, index, { classifier: everything });
    expect(JSON.stringify(r)).not.toMatch(/payroll-run|Run payroll/);
  });

  it('cuts long or control-laden descriptions to one line', () => {
    const noisy = { ...entry('vendor-payment'), skill: { ...entry('vendor-payment').skill, description: `a\u0000b\n${'x'.repeat(500)}` } };
    const q = clarificationQuestion([noisy]);
    expect(q).not.toContain('\u0000');
    expect(q.split('\n')[1].length).toBeLessThan(140);
  });
});

describe('a reply to the question', () => {
  it.each([
    ['2', 'invoice-lookup'],
    [' #3. ', 'expense-report'],
    ['option 1', 'vendor-payment'],
    ['the second one', 'invoice-lookup'],
    ['invoice-lookup', 'invoice-lookup'],
    ['Pay a vendor', 'vendor-payment'],
    ['pay a VENDOR!', 'vendor-payment'],
    ['the expense-report one please', 'expense-report'],
    ['I want the reimbursement for my receipts', 'expense-report'],
    ['2\u0000\u0007', 'invoice-lookup'],
  ])('%j picks %s', (reply, id) => {
    expect(resolveReply(reply, offered)?.id).toBe(id);
  });

  it.each([
    ['number 0', '0'],
    ['number out of range', '4'],
    ['huge number', '99999999999'],
    ['negative number', '-1'],
    ['negated choice', 'not 2'],
    ['refusal', 'none of these'],
    ['a word two choices share', 'invoice'],
    ['a capability the caller cannot see', 'payroll-run'],
    ['an entitled capability that was not offered', 'customer-refund'],
    ['empty', ''],
    ['control and format characters only', '\u0000\u0001\u200b'],
    ['100 KB of digits', '2'.repeat(100_000)],
    ['100 KB after a number', `2 ${'a'.repeat(100_000)}`],
  ])('%s picks nothing', (_label, reply) => {
    expect(resolveReply(reply, offered)).toBeUndefined();
  });

  const pending = { offered: ['vendor-payment', 'invoice-lookup', 'expense-report'], earlierText: 'invoice from Acme' };

  it('routes a reply naming a choice to it on the same task (layer "clarified")', () => {
    const r = route(text('2'), caller, index, { classifier: unsure, pending });
    expect(r).toMatchObject({ kind: 'routed', layer: 'clarified', entry: { id: 'invoice-lookup' } });
  });

  it('routes anything else afresh with both messages’ text', () => {
    const seen: string[] = [];
    const spy: Classifier = { classify: (t, c) => (seen.push(t), { id: c[0].id, confidence: 1 }) };
    route(text('the one for Globex'), caller, index, { classifier: spy, pending });
    expect(seen).toEqual(['invoice from Acme\nthe one for Globex']);
  });

  it('never routes to a capability the caller cannot see, even if the stored choices name it', () => {
    const tampered = { offered: ['payroll-run', 'vendor-payment'], earlierText: '' };
    const r = route(text('1'), caller, index, { classifier: unsure, pending: tampered });
    // "1" is the first choice still entitled (vendor-payment), never the hidden one.
    expect(r).toMatchObject({ kind: 'routed', entry: { id: 'vendor-payment' } });
    const named = route(text('payroll-run'), caller, index, { classifier: unsure, pending: tampered });
    expect(JSON.stringify(named)).not.toMatch(/payroll-run|Run payroll/);
  });

  it('a 100 KB reply is routed afresh, not matched as a choice', () => {
    const r = route(text(`2 ${'pay '.repeat(25_000)}`), caller, index, { classifier: unsure, pending });
    expect(r.kind).toBe('input-required');
  });
});

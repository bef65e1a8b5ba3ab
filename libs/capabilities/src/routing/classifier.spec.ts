import { financeAgentExample } from '../fixtures/finance-agent';
import { buildRouterIndex, type RouterEntry } from '../router-index';
import { given } from '../testing/given';
import { LexicalClassifier } from './classifier';
import { asksAboutState, describesAction, stem, terms, withoutNames } from './text';

const finance = financeAgentExample();
const entries = buildRouterIndex(given.snapshot(finance.manifests, { agent: finance.agent }), finance.callers.partner).entries;

const entry = (id: string, name: string, description: string, routing?: RouterEntry['routing']): RouterEntry => ({
  id,
  handler: `h.v1.${id.replace(/-/g, '_')}`,
  state: 'ga',
  inputModes: ['text/plain'],
  outputModes: ['application/json'],
  skill: { name, description, tags: [], examples: [] },
  ...(routing ? { routing } : {}),
});

describe('text analysis', () => {
  it('relates inflected and derived forms the old suffix stripper kept apart', () => {
    expect(stem('approval')).toBe(stem('approve'));
    expect(stem('approved')).toBe(stem('approve'));
    expect(stem('paid')).toBe(stem('pay'));
    expect(stem('payment')).toBe(stem('pay'));
    expect(stem('payments')).toBe(stem('pay'));
    expect(stem('reimbursement')).toBe(stem('reimbursed'));
    expect(stem('catalogue')).toBe(stem('catalog'));
  });

  it('merges everyday synonyms and two-word verbs, the same way in manifests and messages (ADR 0095)', () => {
    expect(terms('please sign off the request')).toEqual(terms('approve the request'));
    expect(terms('call off my booking')).toEqual(terms('cancel my booking'));
    expect(terms('nudge them about the bill')).toEqual(terms('remind them about the invoice'));
    expect(terms('purchase a laptop')).toEqual(terms('buy a laptop'));
    // A phrase only counts as adjacent words: "sign" alone and "off" alone stay as they are.
    expect(terms('sign the form')).toEqual([stem('sign'), stem('form')]);
    expect(terms('why does it show us its status')).toEqual([stem('show'), 'status']);
  });

  it('drops stopwords and every token holding a digit (ids, amounts, dates)', () => {
    expect(terms('What is the status of invoice INV-20931 for 4,200 EUR on 3rd May?')).toEqual(['status', stem('invoice'), 'eur']);
    expect(terms('month-end close')).toEqual(['month', 'end', 'close']);
    expect(terms('')).toEqual([]);
  });

  it('drops spelled-out dates and times like numbers, keeping a period word that is not a date (ADR 0096)', () => {
    const pay = terms('pay the invoice');
    expect(terms('pay the invoice at the end of the month')).toEqual(pay);
    expect(terms('pay the invoice at the start of next quarter')).toEqual(pay);
    expect(terms('pay the invoice next Tuesday morning')).toEqual(pay);
    expect(terms('pay the invoice, it was due two weeks ago')).toEqual([...pay, stem('due')]);
    expect(terms('pay the invoice from last month')).toEqual(pay);
    expect(terms('pay the October invoice tomorrow')).toEqual(pay);
    expect(terms('pay this week')).toEqual([stem('pay')]);
    // The period words that are not part of a date stay: they can be what a capability is about.
    expect(terms('month-end close')).toEqual(['month', 'end', 'close']);
    expect(terms('send their monthly statement')).toEqual([stem('send'), stem('monthly'), stem('statement')]);
    expect(terms('the end of the line')).toEqual([stem('end'), stem('line')]);
    expect(terms('last invoice')).toEqual([stem('last'), stem('invoice')]);
    // Hostile input: a wall of date words is just dropped, nothing throws.
    expect(terms('last month '.repeat(5000))).toEqual([]);
    expect(terms('ago ago ago end of of the')).toEqual([stem('end')]);
  });
});

describe('names in examples (ADR 0360)', () => {
  const none = new Set<string>();

  it("drops a capitalised word inside a sentence, keeping sentence openers, words in capitals and the capability's own words", () => {
    expect(withoutNames('Send Contoso their statement of account.', none)).toBe('Send   their statement of account.');
    expect(withoutNames("Approve Maria's requisition. Globex too", none)).toBe('Approve   requisition. Globex too');
    expect(withoutNames('Reconcile invoice INV-20931 against its PO, in EUR.', none)).toBe(
      'Reconcile invoice INV-20931 against its PO, in EUR.',
    );
    expect(withoutNames('What is the daily allowance in London?', none)).toBe('What is the daily allowance in  ?');
    // A capitalised word the capability itself uses (its name, description, tags, routing terms) is evidence.
    expect(withoutNames('Dispute my Amex charge', new Set(terms('amex')))).toBe('Dispute my Amex charge');
    expect(withoutNames('check the McDonald e-Mail', none)).toBe('check the McDonald e-Mail');
    expect(withoutNames('', none)).toBe('');
  });

  it('survives hostile text: huge, all names, control characters', () => {
    const names = 'pay Acme '.repeat(20_000);
    expect(terms(withoutNames(names, none))).toEqual(terms('pay '.repeat(20_000)));
    // A control character opens no sentence: the name after it goes too.
    expect(withoutNames('\u0000Acme\u202e pays Globex\u0000', none)).toBe('\u0000 \u202e pays  \u0000');
  });

  it('a name an example happens to use is no evidence for its capability; its words still are', () => {
    const receivables = [
      {
        ...entry('customer-statement', 'Send a customer statement', 'Sends a customer their statement of account.'),
        skill: {
          name: 'Send a customer statement',
          description: 'Sends a customer their statement of account.',
          tags: [],
          examples: ['Send Contoso their statement of account.'],
        },
      },
      {
        ...entry('dunning-reminder', 'Chase an overdue customer', 'Sends a payment reminder to a customer.'),
        skill: {
          name: 'Chase an overdue customer',
          description: 'Sends a payment reminder to a customer.',
          tags: [],
          examples: ['Remind Fabrikam that their invoice is overdue.'],
        },
      },
    ];
    const before = new LexicalClassifier(undefined, { namesInExamples: true });
    const now = new LexicalClassifier();
    expect(before.classify('something about Contoso', receivables).id).toBe('customer-statement');
    expect(now.classify('something about Contoso', receivables)).toMatchObject({ id: null, confidence: 0 });
    expect(now.classify('remind Contoso their invoice is overdue', receivables).id).toBe('dunning-reminder');
    expect(now.classify('send Fabrikam their statement of account', receivables).id).toBe('customer-statement');
  });
});

describe('questions about how things stand, and capabilities that act (ADR 0198)', () => {
  it('tells a question about a state from a request to act, clause by clause', () => {
    for (const q of [
      'has the purchase order for the laptops been approved yet',
      'when did we pay Umbrella Corp for the March invoice',
      'which hotel am I staying at in Prague',
      "Contoso says they haven't been paid, did the money go out",
      'how many of the items on PO 9021 have we received',
      "what's the confirmation number for my hotel",
      'Is invoice INV-300 still open?',
    ])
      expect([q, asksAboutState(q)]).toEqual([q, true]);
    for (const r of [
      'book me a flight to Lisbon',
      'can you cancel the Berlin trip',
      'do you have a minute to approve PR-2231',
      'how do I get my taxi money back',
      'please put my Uber rides on my expense report',
      'pay invoice INV-4410 on Friday',
      '',
    ])
      expect([r, asksAboutState(r)]).toEqual([r, false]);
  });

  it('survives hostile text: huge, no letters, only punctuation', () => {
    expect(asksAboutState('?,.;'.repeat(100_000))).toBe(false);
    expect(asksAboutState('book a flight, '.repeat(20_000) + 'has it been approved')).toBe(true);
    expect(asksAboutState('\u0000\u202e has\u0000 it')).toBe(true);
  });

  it("judges whether a capability acts from its description's first verb", () => {
    expect(describesAction('Finds a supplier invoice by number and returns its status.')).toBe(false);
    expect(describesAction('Shows your upcoming trips.')).toBe(false);
    expect(describesAction('Tells whether a payment was sent.')).toBe(false);
    expect(describesAction('Books a flight within the travel policy.')).toBe(true);
    expect(describesAction('Schedules payment of an approved invoice.')).toBe(true);
    expect(describesAction('')).toBe(false);
  });
});

describe('LexicalClassifier', () => {
  const classifier = new LexicalClassifier();

  it("routes the registry's own example to its capability (main sent it to another one)", () => {
    const r = classifier.classify('What is the status of invoice INV-20931?', entries);
    expect(r.id).toBe('invoice-lookup');
    expect(r.ranking?.[0].id).toBe('invoice-lookup');
    const recon = classifier.classify('reconcile this invoice against the PO', entries);
    expect(recon.id).toBe('reconcile-invoice');
    expect(recon.confidence).toBeGreaterThanOrEqual(0.6);
  });

  it('is not punished by words no capability knows (names, numbers, chit-chat)', () => {
    const plain = classifier.classify('reconcile invoice against purchase order', entries);
    const noisy = classifier.classify('hey Maria, reconcile Initech invoice 2231 against purchase order, urgent thx', entries);
    expect(noisy.id).toBe(plain.id);
    expect(noisy.confidence).toBe(plain.confidence);
  });

  it('lets no spelled-out date decide a route: "the end of the month" is when, not the month-end close (ADR 0096)', () => {
    const finance = [
      entry('close-checklist', 'Month-end close status', 'Shows which month-end close tasks are done, late or blocked.'),
      entry(
        'schedule-payment',
        'Schedule a supplier payment',
        'Schedules payment of an approved supplier invoice in the next payment run.',
      ),
      entry('payment-status', 'Payment status', 'Tells whether a payment to a supplier for last month was sent or cleared.'),
    ];
    const dated = classifier.classify("can we pay Globex's approved invoice at the end of the month", finance);
    const undated = classifier.classify("can we pay Globex's approved invoice", finance);
    expect(dated.id).toBe('schedule-payment');
    expect(dated.confidence).toBe(undated.confidence);
    expect(dated.ranking?.map((r) => r.id)).not.toContain('close-checklist');
    // A date in the manifest does not pull a message that carries the same date either.
    const status = classifier.classify('was the supplier payment for last month sent', finance);
    expect(status.ranking).toEqual(classifier.classify('was the supplier payment sent', finance).ranking);
    // The capability's own words still count: "month-end close" is not a date.
    expect(classifier.classify('where are we on the month-end close tasks', finance).id).toBe('close-checklist');
  });

  it('keeps short generic messages below the threshold even when one capability matches', () => {
    const cancel = [
      entry('cancel-trip', 'Cancel a booking', 'Cancels a booked trip.'),
      entry('book-hotel', 'Book a hotel', 'Books a room.'),
    ];
    const r = classifier.classify('cancel it', cancel);
    expect(r.id).toBe('cancel-trip');
    expect(r.confidence).toBeLessThan(0.6);
    expect(r.reason).toMatch(/generic/);
  });

  it('gives null when nothing matches, and offers only the plausible candidates', () => {
    expect(classifier.classify('hello there', entries)).toMatchObject({ id: null, confidence: 0 });
    const many = [
      entry('book-flight', 'Book a flight', 'Books a flight.'),
      entry('book-hotel', 'Book a hotel', 'Books a hotel room.'),
      entry('fx-rate', 'Exchange rates', 'Currency rates.'),
      entry('budget-check', 'Budget', 'Budget left.'),
    ];
    const r = classifier.classify('book a flight or a hotel', many);
    expect(r.plausible).toEqual(expect.arrayContaining(['book-flight', 'book-hotel']));
    expect(r.plausible).not.toContain('fx-rate');
    expect(r.plausible).not.toContain('budget-check');
  });

  it('routing terms pull (multi-word ones as phrases) and negative terms push a candidate out', () => {
    const set = [
      entry('credit-note-request', 'Request a credit note', 'Asks a supplier for a credit note.', {
        terms: ['credit memo'],
        negativeTerms: [],
      }),
      entry('invoice-lookup', 'Look up an invoice', 'Finds an invoice and its memo field.', { terms: [], negativeTerms: ['credit memo'] }),
    ];
    const r = classifier.classify('please get us a credit memo from Acme', set);
    expect(r.id).toBe('credit-note-request');
    expect(r.ranking?.map((x) => x.id)).toEqual(['credit-note-request']);
    const without = classifier.classify(
      'please get us a credit memo from Acme',
      set.map((e) => ({ ...e, routing: undefined })),
    );
    expect(without.ranking?.map((x) => x.id)).toContain('invoice-lookup');
  });

  it('routes only when the winner is both strong enough and clearly ahead of the runner-up (ADR 0095)', () => {
    const travel = [
      entry('book-flight', 'Book a flight', 'Books a flight ticket with an airline.'),
      entry('book-hotel', 'Book a hotel', 'Books a hotel room.'),
      entry('fx-rate', 'Exchange rates', 'Currency exchange rates.'),
    ];
    // Clear: airline and ticket only the flight capability knows.
    expect(classifier.classify('get me an airline flight ticket to Oslo on the 3rd', travel).confidence).toBeGreaterThanOrEqual(0.6);
    // No margin: "book" is shared by both bookers and nothing else separates them.
    const shared = classifier.classify('book for Oslo and reserve', travel);
    expect(shared.confidence).toBeLessThan(0.6);
    // A stricter margin or strength edge turns the same clear message into a question.
    const strict = new LexicalClassifier({ minStrength: 0.1, minMargin: 0.99 });
    expect(
      strict.classify('get me an airline flight ticket to Oslo on the 3rd', [
        ...travel,
        entry('x', 'Airline flight miles', 'Miles per ticket.'),
      ]).confidence,
    ).toBeLessThan(0.6);
    const weak = new LexicalClassifier({ minStrength: 50, minMargin: 0 });
    expect(weak.classify('get me an airline flight ticket to Oslo on the 3rd', travel).confidence).toBeLessThan(0.6);
  });

  it('answers the same whatever the candidate order, ties broken by id', () => {
    const q = 'reconcile invoice against purchase order';
    expect(classifier.classify(q, [...entries].reverse())).toEqual(classifier.classify(q, entries));
    const twins = [entry('b-twin', 'Twin thing', 'Same words.'), entry('a-twin', 'Twin thing', 'Same words.')];
    const tie = classifier.classify('twin thing words', twins);
    expect(tie.id).toBe('a-twin');
    expect(tie.confidence).toBeLessThan(0.6);
  });

  it('weighs capabilities that act down when the message asks how something stands (ADR 0198)', () => {
    const procurement = [
      entry('approve-purchase-request', 'Approve purchase requests', 'Approves or rejects purchase orders waiting for your approval.'),
      entry('purchase-order-status', 'Purchase order status', 'Tracks a purchase order and its delivery.'),
    ];
    // The same object words; the question asks about the order's state, the request asks to act.
    const question = classifier.classify('has the purchase order for the laptops been approved', procurement);
    expect(question.id).toBe('purchase-order-status');
    expect(question.reason).toMatch(/asks how something stands/);
    const request = classifier.classify('approve the purchase order for the laptops', procurement);
    expect(request.id).toBe('approve-purchase-request');
    expect(request.reason).not.toMatch(/asks how something stands/);
    // A question where only acting capabilities match still ranks them (weighed down, not removed).
    const onlyActs = classifier.classify('has anyone approved the purchase', [procurement[0]]);
    expect(onlyActs.id).toBe('approve-purchase-request');
  });

  it('survives hostile text: huge, control characters, no letters', () => {
    const huge = 'invoice '.repeat(50_000) + '\u0000\u202e';
    expect(classifier.classify(huge, entries).id).not.toBeUndefined();
    expect(classifier.classify('1234 5678 -- !!!', entries)).toMatchObject({ id: null, confidence: 0 });
  });
});

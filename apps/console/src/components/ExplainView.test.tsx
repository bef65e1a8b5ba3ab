import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ExplainView, verdict, type Explanation } from './ExplainView';

const explanation = (over: Partial<Explanation> = {}): Explanation => ({
  agentId: 'finance-agent',
  capabilityId: 'reconcile-invoice',
  revision: 3,
  inPublicCard: false,
  inExtendedCard: false,
  routable: false,
  rule: 'scope-missing',
  reason: 'the caller lacks the scope recon.run',
  ...over,
});

afterEach(cleanup);

describe('explain view', () => {
  it('names every projection the capability appears in, or says the caller cannot see it', () => {
    expect(verdict(explanation(), 'anonymous')).toBe('anonymous cannot see reconcile-invoice');
    expect(verdict(explanation({ inExtendedCard: true, routable: true }), 'acme-partner')).toBe(
      'acme-partner sees reconcile-invoice in the extended card, routing',
    );
    expect(verdict(explanation({ inPublicCard: true, inExtendedCard: true, routable: true }), 'x')).toBe(
      'x sees reconcile-invoice in the public card, the extended card, routing',
    );
  });

  it('shows the rule and reason, and marks a denial', () => {
    render(<ExplainView explanation={explanation()} caller="acme-partner" />);
    const section = screen.getByRole('region', { name: 'Why: reconcile-invoice' });
    expect(section.textContent).toContain('scope-missing');
    expect(section.textContent).toContain('the caller lacks the scope recon.run');
    expect(screen.getByText('acme-partner cannot see reconcile-invoice').parentElement!.className).toBe('denied');
  });

  it('marks a visible capability as such', () => {
    render(<ExplainView explanation={explanation({ inExtendedCard: true, routable: true, rule: 'entitled' })} caller="acme-partner" />);
    expect(screen.getByText(/acme-partner sees reconcile-invoice/).parentElement!.className).toBe('ok');
  });
});

import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { layerSteps, RouteDecision, type RouteResult } from './RouteDecision';

const result = (over: Partial<RouteResult> = {}): RouteResult => ({
  index: 0,
  text: 'Reconcile invoice INV-20931 against its PO',
  expect: 'clarify',
  got: 'reconcile-invoice',
  confidence: 0.91,
  correct: false,
  wrong: true,
  layer: 'classifier',
  reason: 'classified with confidence 0.91',
  candidates: [
    { id: 'reconcile-invoice', score: 7.25 },
    { id: 'invoice-lookup', score: 1.5 },
  ],
  indexSize: 2,
  ...over,
});

const statuses = (r: RouteResult) => layerSteps(r).map((s) => `${s.id}:${s.status}`);

afterEach(cleanup);

describe('routing decision, layer by layer', () => {
  it('passes every earlier layer and lets the classifier decide', () => {
    expect(statuses(result())).toEqual([
      'bound-task:passed',
      'entitlement:passed',
      'only-candidate:passed',
      'data-shape:passed',
      'hint:passed',
      'classifier:decided',
    ]);
    const steps = layerSteps(result());
    expect(steps[1]!.detail).toBe("2 capabilities in this caller's router index (nothing else is looked at)");
    expect(steps[5]!.detail).toBe('chose reconcile-invoice (confidence 0.91): classified with confidence 0.91');
  });

  it('stops at the layer that decided and marks the rest not reached', () => {
    const r = result({ layer: 'only-candidate', got: 'invoice-lookup', indexSize: 1, candidates: [], reason: 'the only capability' });
    expect(statuses(r)).toEqual([
      'bound-task:passed',
      'entitlement:passed',
      'only-candidate:decided',
      'data-shape:not reached',
      'hint:not reached',
      'classifier:not reached',
    ]);
    expect(layerSteps(r)[1]!.detail).toMatch(/^1 capability in/);
  });

  it('shows a clarification as the classifier not being sure enough', () => {
    const r = result({ layer: 'clarification', got: 'clarify', reason: 'nothing in the message points to a capability' });
    const last = layerSteps(r).at(-1)!;
    expect(last).toMatchObject({ id: 'classifier', status: 'decided' });
    expect(last.detail).toBe('not sure enough: nothing in the message points to a capability; the caller is asked to clarify');
  });

  it('puts a failure at the media types, or at entitlement when the caller may use nothing', () => {
    const failed = result({
      layer: null,
      got: 'failed',
      confidence: null,
      candidates: [],
      reason: 'no capability available to you accepts text/plain',
    });
    expect(statuses(failed).slice(1, 4)).toEqual(['entitlement:passed', 'only-candidate:failed', 'data-shape:not reached']);
    expect(layerSteps(failed)[2]!.detail).toBe('no capability available to you accepts text/plain');
    expect(statuses({ ...failed, indexSize: 0 }).slice(1, 3)).toEqual(['entitlement:failed', 'only-candidate:not reached']);
  });

  it('renders the layers in order and the candidates with their scores', () => {
    render(<RouteDecision result={result()} revision={4} />);
    const region = screen.getByRole('region', { name: 'Routing decision' });
    expect(region.textContent).toContain('Routed to reconcile-invoice (revision 4, confidence 0.91)');
    const items = within(screen.getByRole('list', { name: 'Routing decision, layer by layer' })).getAllByRole('listitem');
    expect(items.map((li) => li.getAttribute('data-layer'))).toEqual([
      'bound-task',
      'entitlement',
      'only-candidate',
      'data-shape',
      'hint',
      'classifier',
    ]);
    expect(items[5]!.getAttribute('data-status')).toBe('decided');
    const rows = within(screen.getByRole('table')).getAllByRole('row');
    expect(rows.slice(1).map((r) => r.textContent)).toEqual(['reconcile-invoice7.250', 'invoice-lookup1.500']);
  });
});

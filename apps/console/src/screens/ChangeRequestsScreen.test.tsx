import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { SettingsChange } from './ChangeRequestsScreen';

afterEach(cleanup);

describe('<SettingsChange>', () => {
  it('shows each allow list the request changes, its value now and after approval (ADR 0325)', () => {
    render(
      <SettingsChange
        settings={{
          fields: ['protocol.webhookAllow', 'protocol.upstreamAllow'],
          before: { protocol: { webhookAllow: ['10.20.0.0/16'], streaming: true } },
          after: { protocol: { webhookAllow: ['10.0.0.0/8'], upstreamAllow: ['recon.internal', '10.1.2.3'], streaming: true } },
        }}
      />,
    );
    const table = screen.getByRole('table', { name: 'Agent settings this request changes' });
    const rows = within(table)
      .getAllByRole('row')
      .map((r) => [...r.querySelectorAll('th, td')].map((c) => c.textContent));
    expect(rows).toEqual([
      ['Field', 'Now', 'After approval'],
      ['protocol.webhookAllow', '10.20.0.0/16', '10.0.0.0/8'],
      ['protocol.upstreamAllow', 'none', 'recon.internal, 10.1.2.3'],
    ]);
  });
});

import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/client';
import { TimingContext, useLoad } from '../context';
import { LoadState } from './LoadState';

afterEach(cleanup);
beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** A screen with one load, driven by promises the test settles. */
function Screen({ load }: { load: () => Promise<string> }) {
  const loaded = useLoad('k', load);
  return (
    <>
      <LoadState loads={[loaded]} what="the things" />
      {loaded.data && <p>data: {loaded.data}</p>}
    </>
  );
}

const timing = { spinnerDelayMs: 300, apiTimeoutMs: 2000 };
const mount = (load: () => Promise<string>) =>
  render(
    <TimingContext.Provider value={timing}>
      <Screen load={load} />
    </TimingContext.Provider>,
  );

describe('LoadState', () => {
  it('shows nothing for a quick answer, a spinner only once the answer is slow', async () => {
    let answer: (v: string) => void = () => {};
    mount(() => new Promise<string>((r) => (answer = r)));
    expect(screen.queryByRole('status')).toBeNull();
    await act(() => vi.advanceTimersByTimeAsync(350));
    expect(screen.getByRole('status').textContent).toContain('Loading the things…');
    await act(async () => answer('ok'));
    expect(screen.queryByRole('status')).toBeNull();
    expect(screen.getByText('data: ok')).toBeTruthy();
  });

  it('times out with a retry that loads again', async () => {
    const load = vi.fn<() => Promise<string>>(() => new Promise<string>(() => {}));
    mount(load);
    await act(() => vi.advanceTimersByTimeAsync(2100));
    expect(screen.getByRole('alert').textContent).toContain('The API has not answered (the things) in 2 s.');
    load.mockImplementation(() => Promise.resolve('second'));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Retry' })));
    expect(load).toHaveBeenCalledTimes(2);
    expect(screen.getByText('data: second')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it("shows the API's error with a retry", async () => {
    const load = vi.fn<() => Promise<string>>(() => Promise.reject(new ApiError('FORBIDDEN', 'not your team')));
    mount(load);
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(screen.getByRole('alert').textContent).toContain('FORBIDDEN not your team');
    load.mockImplementation(() => Promise.resolve('fine'));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Retry' })));
    expect(screen.getByText('data: fine')).toBeTruthy();
  });
});

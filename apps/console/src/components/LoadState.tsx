import type { Loaded } from '../context';
import { ErrorBox } from './ErrorBox';

/**
 * What a screen shows while its data is on the way: nothing at first (most answers are quick), a
 * spinner once the answer is slow, a timeout with a retry button when the API does not answer, and
 * the API's error with a retry button when it fails.
 */
export function LoadState({ loads, what }: { loads: Loaded<unknown>[]; what: string }) {
  const failed = loads.find((l) => l.error && !l.loading);
  const retry = () => loads.filter((l) => l.error || l.timedOut).forEach((l) => l.reload());
  if (failed)
    return (
      <ErrorBox error={failed.error}>
        <button type="button" onClick={retry}>
          Retry
        </button>
      </ErrorBox>
    );
  const late = loads.find((l) => l.timedOut);
  if (late)
    return (
      <div role="alert" className="error" data-testid="timeout">
        <p>
          The API has not answered ({what}) in {Math.round(late.timeoutMs / 1000)} s.
        </p>
        <button type="button" onClick={retry}>
          Retry
        </button>
      </div>
    );
  if (loads.some((l) => l.slow))
    return (
      <p role="status" className="loading" aria-live="polite">
        <span className="spinner" aria-hidden="true" /> Loading {what}…
      </p>
    );
  return null;
}

import type { ApiError } from '../api/client';

/** An API error where it happened: its code, its message and each problem at its path. */
export function ErrorBox({ error, children }: { error: ApiError | undefined; children?: React.ReactNode }) {
  if (!error) return null;
  return (
    <div role="alert" className="error">
      <p>
        <code className="code">{error.code}</code> {error.message}
      </p>
      {error.problems.length > 0 && (
        <ul aria-label="Problems">
          {error.problems.map((p, i) => (
            <li key={i}>
              <code>{p.path}</code> {p.message}
            </li>
          ))}
        </ul>
      )}
      {children}
    </div>
  );
}

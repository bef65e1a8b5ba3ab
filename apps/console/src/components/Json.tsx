/** A JSON value, indented, in a scrollable region with a name screen readers announce. */
export function Json({ value, label }: { value: unknown; label: string }) {
  return (
    <pre className="json" tabIndex={0} role="region" aria-label={label}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

import { useId, useState } from 'react';
import { toApiError, type ApiError, type ApiProblem } from '../api/client';
import { ErrorBox } from './ErrorBox';

/** The API's problems at `$.<field>` (or inside it: `$.protocol.versions[0]` belongs to `protocol.versions`). */
export function problemsAt(error: ApiError | undefined, field: string): ApiProblem[] {
  if (!error) return [];
  const at = `$.${field}`;
  return error.problems.filter((p) => p.path === at || p.path.startsWith(`${at}.`) || p.path.startsWith(`${at}[`));
}

interface FieldProps {
  label: string;
  /** The input's path in the mutation's input, e.g. `name` or `protocol.versions`. */
  field: string;
  value: string;
  onChange: (value: string) => void;
  error: ApiError | undefined;
  hint?: string;
  disabled?: boolean;
  multiline?: boolean;
  maxLength?: number;
}

/** A labelled input with the API's problems for its path right under it (aria-invalid, described by them). */
export function TextField({ label, field, value, onChange, error, hint, disabled, multiline, maxLength = 2000 }: FieldProps) {
  const id = useId();
  const problems = problemsAt(error, field);
  const described = [hint ? `${id}-hint` : '', problems.length ? `${id}-problems` : ''].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    name: field,
    value,
    disabled,
    maxLength,
    'aria-invalid': problems.length > 0 || undefined,
    'aria-describedby': described,
  };
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {multiline ? (
        <textarea {...common} rows={3} onChange={(e) => onChange(e.target.value)} />
      ) : (
        <input {...common} onChange={(e) => onChange(e.target.value)} />
      )}
      {hint && (
        <small id={`${id}-hint`} className="hint">
          {hint}
        </small>
      )}
      <FieldProblems problems={problems} label={label} id={`${id}-problems`} />
    </div>
  );
}

/** The API's problems under a field that is no TextField (a select, a group of checkboxes), named after its label. */
export function FieldProblems({ problems, label, id }: { problems: ApiProblem[]; label: string; id?: string }) {
  if (problems.length === 0) return null;
  return (
    <ul id={id} className="field-problems" aria-label={`Problems with ${label}`}>
      {problems.map((p, i) => (
        <li key={i}>
          <code>{p.path}</code> {p.message}
        </li>
      ))}
    </ul>
  );
}

/** A mutation behind a form: busy while it runs, the API's error (kept for the fields) or a notice when done. */
export function useSubmit() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  const [notice, setNotice] = useState('');
  const run = async (action: () => Promise<string>): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    setNotice('');
    try {
      setNotice(await action());
      return true;
    } catch (e) {
      setError(toApiError(e));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, notice, run, clear: () => (setError(undefined), setNotice('')) };
}

/** The outcome of a form: the API's error (code, message, problems) or what was done. */
export function FormOutcome({ submit }: { submit: { error?: ApiError; notice: string } }) {
  return (
    <>
      <ErrorBox error={submit.error} />
      {submit.notice && (
        <p role="status" className="notice">
          {submit.notice}
        </p>
      )}
    </>
  );
}

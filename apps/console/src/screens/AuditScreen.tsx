import { useId, useState } from 'react';
import { readParam, useTitle, writeParam } from '../url';
import { LoadState } from '../components/LoadState';
import { AuditQuery } from '../api/operations';
import { Json } from '../components/Json';
import { useConsole, useLoad } from '../context';
import { Table } from '../components/Table';

const FIELDS = [
  ['agentId', 'Agent'],
  ['actor', 'Actor'],
  ['action', 'Action'],
  ['targetType', 'Target type'],
  ['targetId', 'Target id'],
] as const;
type Filter = Partial<Record<(typeof FIELDS)[number][0], string>>;

/** The audit log, newest first, with filters. */
export function AuditScreen() {
  const { api } = useConsole();
  useTitle('Audit log');
  // The filters live in the URL (?agentId=…&action=…): a filtered log can be shared and survives a reload.
  const [filter, setFilterState] = useState<Filter>(() => {
    const initial: Filter = {};
    for (const [k] of FIELDS) if (readParam(k)) initial[k] = readParam(k);
    return initial;
  });
  const [draft, setDraft] = useState<Filter>(filter);
  const setFilter = (next: Filter) => {
    for (const [k] of FIELDS) writeParam(k, next[k]?.trim() ?? '');
    setFilterState(next);
  };
  const id = useId();
  const clean = Object.fromEntries(Object.entries(filter).filter(([, v]) => v && v.trim()));
  const events = useLoad(`audit:${JSON.stringify(clean)}`, () => api.request(AuditQuery, { filter: clean, page: { first: 100 } }));
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <form
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter(draft);
        }}
      >
        {FIELDS.map(([key, label]) => (
          <div className="field" key={key}>
            <label htmlFor={`${id}-${key}`}>{label}</label>
            <input
              id={`${id}-${key}`}
              value={draft[key] ?? ''}
              maxLength={200}
              onChange={(e) => setDraft({ ...draft, [key]: e.target.value })}
            />
          </div>
        ))}
        <button type="submit">Filter</button>
      </form>
      <LoadState loads={[events]} what="the audit log" />
      <Table caption="Audit events" columns={['When', 'Actor', 'Action', 'Target', 'Revision', 'Change']}>
        {(events.data?.auditEvents.nodes ?? []).map((e) => (
          <tr key={e.id}>
            <td>
              <time dateTime={e.at}>{new Date(e.at).toLocaleString()}</time>
            </td>
            <td>{e.actor}</td>
            <td>{e.action}</td>
            <td>
              {e.targetType} <code>{e.targetId}</code>
            </td>
            <td>{e.revision ?? '—'}</td>
            <td>
              <details>
                <summary>before / after</summary>
                <Json value={{ before: e.before, after: e.after }} label={`Change of ${e.targetId}`} />
              </details>
            </td>
          </tr>
        ))}
      </Table>
      {events.data && events.data.auditEvents.nodes.length === 0 && <p>No event matches.</p>}
    </section>
  );
}

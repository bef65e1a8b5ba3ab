import { planFieldRows, planIsEmpty, planRows, planWarnings, type Plan } from '../logic/plan';
import { Table } from './Table';

/** An applyManifests plan: warnings first, the public-card diff (breaking rows marked), leaks, every capability, then each changed field old | new. */
export function PlanView({ plan }: { plan: Plan }) {
  const warnings = planWarnings(plan);
  const rows = planRows(plan);
  const fields = planFieldRows(plan);
  return (
    <section aria-label="Plan" className="plan">
      <p>
        {plan.applied ? 'Applied' : 'Planned'} against revision <strong>{plan.revision}</strong>
        {planIsEmpty(plan) && ' — no change'}
      </p>
      {warnings.length > 0 && (
        <ul className="warnings" aria-label="Warnings">
          {warnings.map((w) => (
            <li key={w}>⚠ {w}</li>
          ))}
        </ul>
      )}
      <h3>Public card diff</h3>
      {plan.publicCardDiff.length === 0 ? (
        <p>The public card does not change.</p>
      ) : (
        <Table caption="Changes to the public card" columns={['Change', 'Skill', 'Detail', 'Breaking']} wrap={false}>
          {plan.publicCardDiff.map((c, i) => (
            <tr key={i} className={c.breaking ? 'breaking' : undefined} data-breaking={c.breaking}>
              <td>{c.kind}</td>
              <td>{c.skillId ?? c.extensionUri ?? '—'}</td>
              <td>{c.detail}</td>
              <td>{c.breaking ? 'breaking' : 'no'}</td>
            </tr>
          ))}
        </Table>
      )}
      {plan.leaks.length > 0 && (
        <>
          <h3>Leaks</h3>
          <ul className="leaks" aria-label="Leaks">
            {plan.leaks.map((l, i) => (
              <li key={i}>
                <code>
                  {l.skillId}.{l.field}
                </code>{' '}
                would show “{l.text}” in the public card
              </li>
            ))}
          </ul>
        </>
      )}
      <h3>Capabilities</h3>
      <Table caption="Capabilities in the plan" columns={['Capability', 'Change', 'Fields']} wrap={false}>
        {rows.map((r) => (
          <tr key={`${r.kind}:${r.capabilityId}`} className={`row-${r.kind}`}>
            <td>{r.capabilityId}</td>
            <td>{r.kind}</td>
            <td>{r.detail}</td>
          </tr>
        ))}
      </Table>
      {fields.length > 0 && (
        <>
          <h3>Changed fields</h3>
          <Table
            caption="Changed fields, old and new value side by side"
            columns={['Capability', 'Field', 'Old', 'New']}
            wrap={false}
            className="side-by-side"
          >
            {fields.map((f) => (
              <tr key={`${f.capabilityId}:${f.field}`}>
                <td>{f.capabilityId}</td>
                <td>
                  <code>{f.field}</code>
                </td>
                <td className="old">
                  <pre>{f.before}</pre>
                </td>
                <td className="new">
                  <pre>{f.after}</pre>
                </td>
              </tr>
            ))}
          </Table>
        </>
      )}
    </section>
  );
}

import type { RouteTestQuery } from '../gql/graphql';

export type RouteResult = RouteTestQuery['routeTest']['results'][number];

export type LayerStatus = 'decided' | 'passed' | 'failed' | 'not reached';

export interface LayerStep {
  id: string;
  name: string;
  status: LayerStatus;
  detail: string;
}

/**
 * The router's layers in the order it runs them (libs/capabilities routing/route.ts), each with
 * what it did for this message: the one that decided, the ones passed on the way (and why they
 * had nothing to say), the ones never reached. A test message is a new message with one text
 * part and no skill hint, so the earlier layers' "passed" reasons follow from which layer decided.
 */
export function layerSteps(r: RouteResult): LayerStep[] {
  const capabilities = `${r.indexSize} ${r.indexSize === 1 ? 'capability' : 'capabilities'}`;
  const classified = r.layer === 'classifier' || r.layer === 'clarification';
  const order = ['bound-task', 'entitlement', 'only-candidate', 'data-shape', 'hint', 'classifier'] as const;
  const decidedAt = r.layer === null ? null : r.layer === 'clarification' ? 'classifier' : r.layer;
  const passed: Record<(typeof order)[number], string> = {
    'bound-task': 'a new message: no task to continue',
    entitlement: `${capabilities} in this caller's router index (nothing else is looked at)`,
    'only-candidate': 'more than one of them accepts the message’s media types',
    'data-shape': 'no data part with keys a handler declares',
    hint: 'no skill hint in the message',
    classifier: '',
  };
  const names: Record<(typeof order)[number], string> = {
    'bound-task': 'Bound task',
    entitlement: 'Entitled capabilities',
    'only-candidate': 'Media types',
    'data-shape': 'Data shape',
    hint: 'Skill hint',
    classifier: 'Classifier',
  };
  const steps: LayerStep[] = [];
  let reached = true;
  for (const id of order) {
    if (!reached) {
      steps.push({ id, name: names[id], status: 'not reached', detail: '—' });
      continue;
    }
    if (id === 'entitlement') {
      // Entitlement never decides; it gives the later layers their candidates.
      steps.push({ id, name: names[id], status: r.indexSize === 0 && r.layer === null ? 'failed' : 'passed', detail: passed[id] });
      if (r.indexSize === 0 && r.layer === null) reached = false;
      continue;
    }
    if (decidedAt === id) {
      const detail =
        r.layer === 'clarification'
          ? `not sure enough: ${r.reason}; the caller is asked to clarify`
          : classified
            ? `chose ${r.got} (confidence ${r.confidence?.toFixed(2) ?? '—'}): ${r.reason}`
            : `chose ${r.got}: ${r.reason}`;
      steps.push({ id, name: names[id], status: 'decided', detail });
      reached = false;
      continue;
    }
    if (decidedAt === null && id === 'only-candidate') {
      // The failures a test message can meet come from its media types (nothing accepts them).
      steps.push({ id, name: names[id], status: 'failed', detail: r.reason });
      reached = false;
      continue;
    }
    steps.push({ id, name: names[id], status: 'passed', detail: passed[id] });
  }
  return steps;
}

/** The routing decision for one test message, layer by layer, with the classifier's candidates. */
export function RouteDecision({ result, revision }: { result: RouteResult; revision: number }) {
  const steps = layerSteps(result);
  return (
    <section aria-label="Routing decision" className="route-decision">
      <p>
        <strong>
          {result.got === 'clarify'
            ? 'The router asks the caller to clarify'
            : result.got === 'failed'
              ? 'Routing fails'
              : `Routed to ${result.got}`}
        </strong>{' '}
        (revision {revision}
        {result.confidence !== null && result.confidence !== undefined && <>, confidence {result.confidence.toFixed(2)}</>})
      </p>
      <ol aria-label="Routing decision, layer by layer" className="layers">
        {steps.map((s) => (
          <li key={s.id} data-layer={s.id} data-status={s.status} className={`layer layer-${s.status.replace(' ', '-')}`}>
            <span className="layer-name">{s.name}</span> <span className="layer-status">{s.status}</span>{' '}
            <span className="layer-detail">{s.detail}</span>
          </li>
        ))}
      </ol>
      {result.candidates.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption>Classifier candidates (scores comparable within this decision)</caption>
            <thead>
              <tr>
                <th scope="col">Capability</th>
                <th scope="col">Score</th>
              </tr>
            </thead>
            <tbody>
              {result.candidates.map((c) => (
                <tr key={c.id}>
                  <td>
                    <code>{c.id}</code>
                  </td>
                  <td>{c.score.toFixed(3)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

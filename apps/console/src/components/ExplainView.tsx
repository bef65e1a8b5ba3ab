import type { ExplainQuery } from '../gql/graphql';

export type Explanation = ExplainQuery['explainVisibility'];

/** One line a person can read: where the capability shows up for this caller. */
export function verdict(e: Explanation, caller: string): string {
  const where = [e.inPublicCard && 'the public card', e.inExtendedCard && 'the extended card', e.routable && 'routing'].filter(Boolean);
  return where.length ? `${caller} sees ${e.capabilityId} in ${where.join(', ')}` : `${caller} cannot see ${e.capabilityId}`;
}

/** explainVisibility for one capability and caller: the verdict, each projection, the rule and its reason. */
export function ExplainView({ explanation, caller }: { explanation: Explanation; caller: string }) {
  const yes = (v: boolean) => (v ? 'yes' : 'no');
  return (
    <section aria-label={`Why: ${explanation.capabilityId}`} className="explain">
      <p className={explanation.inExtendedCard || explanation.inPublicCard || explanation.routable ? 'ok' : 'denied'}>
        <strong>{verdict(explanation, caller)}</strong>
      </p>
      <dl>
        <dt>In the public card</dt>
        <dd>{yes(explanation.inPublicCard)}</dd>
        <dt>In the extended card</dt>
        <dd>{yes(explanation.inExtendedCard)}</dd>
        <dt>Routable</dt>
        <dd>{yes(explanation.routable)}</dd>
        <dt>Rule</dt>
        <dd>
          <code>{explanation.rule}</code>
        </dd>
        <dt>Because</dt>
        <dd>{explanation.reason}</dd>
        <dt>Revision</dt>
        <dd>{explanation.revision}</dd>
      </dl>
    </section>
  );
}

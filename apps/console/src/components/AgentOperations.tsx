import { useId, useState } from 'react';
import { ApiError } from '../api/client';
import {
  AgentOperationsQuery,
  DismissRoutingClarificationMutation,
  PromoteRoutingClarificationMutation,
  SetCostBudgetsMutation,
  SetSunsetMutation,
} from '../api/settings-operations';
import { useConsole, useLoad } from '../context';
import type { AgentOperationsQuery as OperationsData, CostClass, PromoteClarificationAs } from '../gql/graphql';
import { FormOutcome, TextField, useSubmit } from './Form';
import { LoadState } from './LoadState';

interface Agent {
  id: string;
  revision: number;
}

/** A deprecated capability as the agent page lists it. */
interface Deprecated {
  id: string;
  state: string;
  sunsetAt?: string | null;
}

/**
 * What an agent's team runs besides its manifests and settings: sunset dates of deprecated
 * capabilities, rate budgets per cost class, and the clarifications callers resolved, to promote
 * or dismiss. Every change is a registry change at the revision the page shows.
 */
export function AgentOperations({
  agent,
  manifests,
  writable,
  onChanged,
}: {
  agent: Agent;
  manifests: Deprecated[];
  writable: boolean;
  onChanged: () => void;
}) {
  const { api } = useConsole();
  const data = useLoad(`agent-operations:${agent.id}@${agent.revision}`, () =>
    api.request(AgentOperationsQuery, { agentId: agent.id, budgetsOf: agent.id }),
  );
  const deprecated = manifests.filter((m) => m.state === 'deprecated');
  // Each form is replaced once its change lands (new revision, new data): what it did is said here.
  const [notices, setNotices] = useState<{ sunset?: string; budgets?: string; clarifications?: string }>({});
  const done = (section: keyof typeof notices, reload: boolean) => (notice: string) => {
    setNotices({ [section]: notice });
    if (reload) data.reload();
    onChanged();
  };
  return (
    <>
      <section aria-labelledby="sunset-title" className="card">
        <h2 id="sunset-title">Sunset dates</h2>
        <p>When a deprecated capability is removed: the retirement job waits for this date, and tenants are notified.</p>
        <Notice text={notices.sunset} />
        {deprecated.length === 0 && <p>No deprecated capability.</p>}
        {deprecated.map((m) => (
          <SunsetForm key={`${m.id}@${agent.revision}`} agent={agent} manifest={m} writable={writable} onSaved={done('sunset', false)} />
        ))}
      </section>
      <section aria-labelledby="budgets-title" className="card">
        <h2 id="budgets-title">Cost budgets</h2>
        <LoadState loads={[data]} what="the cost budgets" />
        <Notice text={notices.budgets} />
        {data.data && (
          <CostBudgetsForm
            key={data.data.costBudgets.revision}
            agent={{ id: agent.id, revision: data.data.costBudgets.revision }}
            budgets={data.data.costBudgets.budgets}
            writable={writable}
            onSaved={done('budgets', false)}
          />
        )}
      </section>
      <section aria-labelledby="clarifications-title" className="card">
        <h2 id="clarifications-title">Routing clarifications</h2>
        <p>Messages callers had to clarify by naming a capability, most frequent first: teach the router or dismiss them.</p>
        <Notice text={notices.clarifications} />
        {data.data && data.data.routingClarifications.length === 0 && <p>No clarification waits for review.</p>}
        {data.data?.routingClarifications.map((c) => (
          <Clarification key={c.id} agent={agent} clarification={c} writable={writable} onDone={done('clarifications', true)} />
        ))}
      </section>
    </>
  );
}

function SunsetForm({
  agent,
  manifest,
  writable,
  onSaved,
}: {
  agent: Agent;
  manifest: Deprecated;
  writable: boolean;
  onSaved: (notice: string) => void;
}) {
  const { api } = useConsole();
  const [date, setDate] = useState(manifest.sunsetAt ? manifest.sunsetAt.slice(0, 10) : '');
  const submit = useSubmit();
  const send = (sunsetAt: string | null) => {
    let notice = '';
    void submit
      .run(async () => {
        const r = await api.request(SetSunsetMutation, {
          input: { agentId: agent.id, capabilityId: manifest.id, expectedRevision: agent.revision, sunsetAt },
        });
        notice = `${sunsetAt ? `Sunset of ${manifest.id} set to ${sunsetAt}` : `Sunset of ${manifest.id} withdrawn`}: the agent is now at revision ${r.setSunset.revision}.`;
        return notice;
      })
      .then((ok) => ok && onSaved(notice));
  };
  return (
    <form
      aria-label={`Sunset of ${manifest.id}`}
      onSubmit={(e) => {
        e.preventDefault();
        send(date.trim() || null);
      }}
    >
      <h3>
        <code>{manifest.id}</code>
      </h3>
      <p>
        {manifest.sunsetAt ? (
          <>
            Removal announced for <time dateTime={manifest.sunsetAt}>{new Date(manifest.sunsetAt).toUTCString()}</time>.
          </>
        ) : (
          'No removal date announced.'
        )}
      </p>
      <TextField
        label="Sunset date"
        field="sunsetAt"
        value={date}
        onChange={setDate}
        error={submit.error}
        disabled={!writable}
        hint="an ISO 8601 date (UTC), e.g. 2027-06-30, at least the configured notice ahead"
        maxLength={100}
      />
      <FormOutcome submit={submit} />
      {writable && (
        <div className="actions">
          <button type="submit" className="primary" disabled={submit.busy}>
            Set sunset of {manifest.id}
          </button>
          {manifest.sunsetAt && (
            <button type="button" disabled={submit.busy} onClick={() => send(null)}>
              Withdraw sunset of {manifest.id}
            </button>
          )}
        </div>
      )}
    </form>
  );
}

const COST_CLASSES: CostClass[] = ['low', 'medium', 'high'];
type Budget = OperationsData['costBudgets']['budgets'][number];

/** A whole number as the API's Int takes it, or undefined. */
const whole = (text: string): number | undefined => (/^-?\d{1,10}$/.test(text.trim()) ? Number(text.trim()) : undefined);

/** The agent's budgets per cost class: both fields empty means the class is not rate limited. */
function CostBudgetsForm({
  agent,
  budgets,
  writable,
  onSaved,
}: {
  agent: Agent;
  budgets: Budget[];
  writable: boolean;
  onSaved: (notice: string) => void;
}) {
  const { api } = useConsole();
  const [rows, setRows] = useState(() =>
    Object.fromEntries(
      COST_CLASSES.map((c) => {
        const b = budgets.find((x) => x.costClass === c);
        return [c, { calls: b ? String(b.calls) : '', windowS: b ? String(b.windowS) : '' }];
      }),
    ),
  );
  // The classes in the order they were last sent: the API names a problem by its index in that list.
  const [sent, setSent] = useState<CostClass[]>([]);
  const submit = useSubmit();
  const at = (c: CostClass, name: 'calls' | 'windowS') => (sent.includes(c) ? `budgets[${sent.indexOf(c)}].${name}` : `budgets.${c}`);
  const set = (c: CostClass, name: 'calls' | 'windowS') => (value: string) => setRows({ ...rows, [c]: { ...rows[c]!, [name]: value } });
  return (
    <form
      aria-label="Cost budgets"
      onSubmit={(e) => {
        e.preventDefault();
        const listed = COST_CLASSES.filter((c) => rows[c]!.calls.trim() || rows[c]!.windowS.trim());
        setSent(listed);
        let notice = '';
        void submit
          .run(async () => {
            // Text that is no whole number never reaches the API (its Int would refuse the whole request, naming no field).
            const problems = listed.flatMap((c, i) =>
              (['calls', 'windowS'] as const)
                .filter((name) => whole(rows[c]![name]) === undefined)
                .map((name) => ({ path: `$.budgets[${i}].${name}`, message: 'must be a whole number' })),
            );
            if (problems.length) throw new ApiError('BAD_USER_INPUT', 'invalid input', problems);
            const r = await api.request(SetCostBudgetsMutation, {
              input: {
                agentId: agent.id,
                expectedRevision: agent.revision,
                budgets: listed.map((c) => ({ costClass: c, calls: whole(rows[c]!.calls)!, windowS: whole(rows[c]!.windowS)! })),
              },
            });
            notice = `Saved the cost budgets: the agent is now at revision ${r.setCostBudgets.revision}.`;
            return notice;
          })
          .then((ok) => ok && onSaved(notice));
      }}
    >
      <p>Calls each tenant may make to each capability of a class in one window, enforced by the agent's nodes. Empty: not limited.</p>
      {!writable && <p>Your role cannot change the budgets.</p>}
      <div className="grid">
        {COST_CLASSES.map((c) => (
          <fieldset key={c} className="field">
            <legend>{c} cost class</legend>
            <TextField
              label={`Calls per window (${c})`}
              field={at(c, 'calls')}
              value={rows[c]!.calls}
              onChange={set(c, 'calls')}
              error={submit.error}
              disabled={!writable}
              hint="1 to 1,000,000,000"
              maxLength={12}
            />
            <TextField
              label={`Window in seconds (${c})`}
              field={at(c, 'windowS')}
              value={rows[c]!.windowS}
              onChange={set(c, 'windowS')}
              error={submit.error}
              disabled={!writable}
              hint="1 to 86,400"
              maxLength={12}
            />
          </fieldset>
        ))}
      </div>
      <FormOutcome submit={submit} />
      {writable && (
        <button type="submit" className="primary" disabled={submit.busy}>
          Save budgets at revision {agent.revision}
        </button>
      )}
    </form>
  );
}

type Clarification = OperationsData['routingClarifications'][number];

/** One clarification to review: promote its (edited) text as an example or a routing term, or dismiss it. */
function Clarification({
  agent,
  clarification: c,
  writable,
  onDone,
}: {
  agent: Agent;
  clarification: Clarification;
  writable: boolean;
  onDone: (notice: string) => void;
}) {
  const { api } = useConsole();
  const [text, setText] = useState(c.text);
  const [as, setAs] = useState<PromoteClarificationAs>('EXAMPLE');
  const submit = useSubmit();
  const asId = useId();
  const title = `“${c.text}” → ${c.capabilityId}`;
  const run = (action: () => Promise<string>) => {
    let notice = '';
    void submit.run(async () => (notice = await action())).then((ok) => ok && onDone(notice));
  };
  return (
    <article aria-label={`Clarification ${title}`} data-clarification={c.id}>
      <h3>{title}</h3>
      <p>
        Tenant {c.tenant} · {c.count} time(s), last <time dateTime={c.lastSeenAt}>{new Date(c.lastSeenAt).toLocaleString()}</time>
      </p>
      {writable && (
        <form
          aria-label={`Promote ${title}`}
          onSubmit={(e) => {
            e.preventDefault();
            run(async () => {
              const r = await api.request(PromoteRoutingClarificationMutation, {
                input: { id: c.id, as, text, expectedRevision: agent.revision },
              });
              return `Added “${text.trim()}” to ${c.capabilityId}'s ${as === 'EXAMPLE' ? 'examples' : 'routing terms'}: the agent is now at revision ${r.promoteRoutingClarification.revision}.`;
            });
          }}
        >
          <TextField
            label="Text to add"
            field="text"
            value={text}
            onChange={setText}
            error={submit.error}
            hint="strip tenant data before it reaches a card as an example"
            maxLength={1000}
          />
          <div className="field">
            <label htmlFor={asId}>Add as</label>
            <select id={asId} value={as} onChange={(e) => setAs(e.target.value as PromoteClarificationAs)}>
              <option value="EXAMPLE">an example of the skill</option>
              <option value="ROUTING_TERM">a routing term</option>
            </select>
          </div>
          <FormOutcome submit={submit} />
          <div className="actions">
            <button type="submit" className="primary" disabled={submit.busy}>
              Promote
            </button>
            <button
              type="button"
              disabled={submit.busy}
              onClick={() =>
                run(async () => (await api.request(DismissRoutingClarificationMutation, { id: c.id }), `Dismissed “${c.text}”.`))
              }
            >
              Dismiss
            </button>
          </div>
        </form>
      )}
    </article>
  );
}

function Notice({ text }: { text: string | undefined }) {
  if (!text) return null;
  return (
    <p role="status" className="notice">
      {text}
    </p>
  );
}

import { useEffect, useId, useState } from 'react';
import { parse as parseYaml } from 'yaml';
import { toApiError, type ApiError, type ApiProblem } from '../api/client';
import { problemsForManifest } from '../logic/problems';
import { AgentsQuery, ApplyManifestsMutation, ManifestsAtRevisionQuery, ManifestsQuery } from '../api/operations';
import { AgentPicker } from '../components/AgentPicker';
import { ErrorBox } from '../components/ErrorBox';
import { PlanView } from '../components/PlanView';
import { canWrite, useConsole, useLoad } from '../context';
import { useTitle, useUrlState } from '../url';
import { LazyManifestEditor } from '../editor/LazyManifestEditor';
import { holdsSeveral } from '../editor/locate';
import type { Plan } from '../logic/plan';

/** JSON (an array or one manifest) or YAML (a list, one document, or several `---` documents). */
export function parseManifests(text: string): { manifests: unknown[] } | { error: string } {
  const trimmed = text.trim();
  if (!trimmed) return { error: 'paste or upload at least one manifest' };
  try {
    const value: unknown = trimmed.startsWith('[') || trimmed.startsWith('{') ? JSON.parse(trimmed) : parseYamlDocuments(trimmed);
    return { manifests: Array.isArray(value) ? (value as unknown[]) : [value] };
  } catch (error) {
    return { error: `the manifests are not valid JSON or YAML: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/**
 * The API names a problem of the i-th manifest `manifests[i].<path>`; in the text that is `$[i]…`
 * (a list or several documents), or `$…` when the text holds one manifest.
 */
export function problemsInText(problems: ApiProblem[], text: string): ApiProblem[] {
  if (holdsSeveral(text)) return problems.map((p) => ({ ...p, path: p.path.replace(/^(?:\$\.?|input\.)?manifests\[/, '$[') }));
  return problemsForManifest(problems, 0);
}

function parseYamlDocuments(text: string): unknown {
  const docs = text.split(/^---\s*$/m).filter((d) => d.trim());
  const values = docs.map((d) => parseYaml(d) as unknown);
  return values.length === 1 ? values[0] : values;
}

/** Plan before apply: manifests in, the applyManifests plan out, then apply at the planned revision. */
export function PlanScreen() {
  const { api, me } = useConsole();
  const [agentId, setAgentId] = useUrlState('agent');
  const [rollback, setRollback] = useUrlState('rollback');
  useTitle(rollback ? `Plan a rollback to revision ${rollback}` : 'Plan & apply', agentId);
  const [text, setText] = useState('');
  const [plan, setPlan] = useState<Plan>();
  const [error, setError] = useState<ApiError>();
  const [parseError, setParseError] = useState('');
  const [applied, setApplied] = useState<Plan>();
  const problemsId = useId();
  const fileId = useId();
  const agents = useLoad('agents', () => api.request(AgentsQuery, { page: { first: 100 } }));
  const agent = agents.data?.agents.nodes.find((a) => a.id === agentId);

  const loadCurrent = async () => {
    if (!agentId) return;
    try {
      const r = await api.request(ManifestsQuery, { agentId });
      const docs = r.manifests.nodes.filter((m) => m.state !== 'removed').map((m) => m.document);
      setText(JSON.stringify(docs, null, 2));
    } catch (e) {
      setError(toApiError(e));
    }
  };

  // ?rollback=N: the agent's manifests as of revision N, planned at once through the normal
  // applyManifests (the plan is against the current revision, which an apply then expects).
  useEffect(() => {
    if (!agentId || !/^\d{1,10}$/.test(rollback)) return;
    let live = true;
    void (async () => {
      try {
        const at = (await api.request(ManifestsAtRevisionQuery, { agentId, revision: Number(rollback) })).manifestsAtRevision;
        if (!live) return;
        const docs = JSON.stringify(at.manifests, null, 2);
        setText(docs);
        await run(true, docs);
      } catch (e) {
        if (live) setError(toApiError(e));
      }
    })();
    return () => {
      live = false;
    };
  }, [agentId, rollback]);

  const run = async (dryRun: boolean, source = text) => {
    const parsed = parseManifests(source);
    if ('error' in parsed) return setParseError(parsed.error);
    setParseError('');
    setError(undefined);
    try {
      const revision = dryRun ? undefined : plan?.revision;
      const r = await api.request(ApplyManifestsMutation, {
        input: { agentId, manifests: parsed.manifests, dryRun, expectedRevision: revision ?? null },
      });
      if (dryRun) {
        setPlan(r.applyManifests);
        setApplied(undefined);
      } else {
        setApplied(r.applyManifests);
        setPlan(undefined);
        agents.reload();
      }
    } catch (e) {
      setError(toApiError(e));
    }
  };

  const writable = agent ? canWrite(me, agent.teamId) : false;
  return (
    <section aria-labelledby="plan-title">
      <h1 id="plan-title">Plan and apply</h1>
      <div className="filters">
        <AgentPicker value={agentId} onChange={(id) => (setAgentId(id), setRollback(''), setPlan(undefined), setApplied(undefined))} />
        <div className="field">
          <label htmlFor={fileId}>Upload manifests (JSON or YAML)</label>
          <input
            id={fileId}
            type="file"
            accept=".json,.yaml,.yml,application/json,text/yaml"
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (file) void file.text().then(setText);
            }}
          />
        </div>
        <button type="button" onClick={() => void loadCurrent()} disabled={!agentId}>
          Start from the current manifests
        </button>
      </div>
      {rollback && (
        <p role="note" className="notice">
          Rollback of {agentId} to revision {rollback}: its manifests as of that revision, planned against the current revision like any
          change (the same checks and approvals).
        </p>
      )}
      <LazyManifestEditor
        label="Manifests"
        value={text}
        onChange={(t) => (setText(t), setPlan(undefined))}
        problems={problemsInText(error?.problems ?? [], text)}
        invalid={Boolean(parseError || error?.problems.length)}
        describedBy={problemsId}
      />
      <div id={problemsId}>
        {parseError && (
          <p role="alert" className="error">
            {parseError}
          </p>
        )}
      </div>
      <ErrorBox error={error}>
        {error?.stale && (
          <button type="button" onClick={() => void run(true)}>
            Re-plan against revision {String(error.extensions.currentRevision)}
          </button>
        )}
      </ErrorBox>
      <div className="actions">
        <button type="button" onClick={() => void run(true)} disabled={!agentId}>
          Plan
        </button>
        {writable && (
          <button type="button" className="primary" onClick={() => void run(false)} disabled={!plan}>
            Apply at revision {plan?.revision ?? '…'}
          </button>
        )}
      </div>
      {plan && <PlanView plan={plan} />}
      {plan && plan.approvalRequired.length > 0 && (
        <p role="note" className="notice">
          Needs a second admin: {plan.approvalRequired.map((c) => `${c.capabilityId} (${c.kind}: ${c.detail})`).join('; ')}. Applying files
          a change request.
        </p>
      )}
      {applied &&
        (applied.changeRequest && !applied.applied ? (
          <p role="status" className="notice">
            Not applied yet: change request <code>{applied.changeRequest.id}</code> holds this plan at revision{' '}
            {applied.changeRequest.baseRevision} until a second admin approves it on the Change requests screen.
          </p>
        ) : (
          <p role="status" className="notice">
            Applied: {agentId} is at revision {applied.revision}. Watch the fleet pick it up on the Fleet screen.
          </p>
        ))}
    </section>
  );
}

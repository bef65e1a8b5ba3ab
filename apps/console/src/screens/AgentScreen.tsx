import { useEffect, useId, useRef, useState } from 'react';
import { ApiError, toApiError, type ApiProblem } from '../api/client';
import {
  ApplyManifestsMutation,
  DeprecateMutation,
  ManifestsQuery,
  PromoteMutation,
  RemoveMutation,
  UpdateManifestMutation,
} from '../api/operations';
import { Confirm } from '../components/Confirm';
import { AgentSettings } from '../components/AgentForms';
import { AgentOperations } from '../components/AgentOperations';
import { ErrorBox } from '../components/ErrorBox';
import { LoadState } from '../components/LoadState';
import { RevisionHistory } from '../components/RevisionHistory';
import { useTitle } from '../url';
import { PlanView } from '../components/PlanView';
import { canWrite, useConsole, useLoad } from '../context';
import type { ManifestsQuery as ManifestsData } from '../gql/graphql';
import type { Plan } from '../logic/plan';
import { parseJson, problemsForManifest } from '../logic/problems';
import { LazyManifestEditor } from '../editor/LazyManifestEditor';
import { Table } from '../components/Table';

type Manifest = ManifestsData['manifests']['nodes'][number];
type Action = { kind: 'promote' | 'remove' | 'deprecate'; manifest: Manifest };

/** One agent: its manifests with state and visibility, the lifecycle actions and the manifest editor. */
export function AgentScreen({ agentId }: { agentId: string }) {
  const { api, me, navigate } = useConsole();
  const data = useLoad(`manifests:${agentId}`, () => api.request(ManifestsQuery, { agentId }));
  const [action, setAction] = useState<Action | null>(null);
  const [replacedBy, setReplacedBy] = useState('');
  const [reason, setReason] = useState('');
  const [actionError, setActionError] = useState<ApiError>();
  const [editing, setEditing] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  const replacedId = useId();
  const reasonId = useId();
  const agent = data.data?.agent;
  const manifests = data.data?.manifests.nodes ?? [];
  const writable = agent ? canWrite(me, agent.teamId) : false;
  useTitle(agent?.name ?? agentId, 'Agent');

  const run = async () => {
    if (!action || !agent) return;
    const input = { agentId, capabilityId: action.manifest.id, expectedRevision: agent.revision };
    try {
      setActionError(undefined);
      const result =
        action.kind === 'promote'
          ? (await api.request(PromoteMutation, { input })).promoteManifest
          : action.kind === 'remove'
            ? (await api.request(RemoveMutation, { input })).removeManifest
            : (
                await api.request(DeprecateMutation, {
                  input: { ...input, replacedBy: replacedBy || null, reason: reason || null },
                })
              ).deprecateManifest;
      setNotice(`${action.kind} ${action.manifest.id}: the agent is now at revision ${result.revision}`);
      setAction(null);
      data.reload();
    } catch (error) {
      setActionError(toApiError(error));
      setAction(null);
    }
  };

  return (
    <section aria-labelledby="agent-title">
      <h1 id="agent-title">{agent ? `${agent.name}` : agentId}</h1>
      {agent && (
        <p>
          <code>{agent.id}</code> · team {agent.teamId} · revision <strong data-testid="agent-revision">{agent.revision}</strong>
          {!writable && ' · read only'}
        </p>
      )}
      <LoadState loads={[data]} what="the agent" />
      <ErrorBox error={actionError}>
        {actionError?.stale && (
          <button type="button" onClick={() => (setActionError(undefined), data.reload())}>
            Reload the agent (now at revision {String(actionError.extensions.currentRevision)})
          </button>
        )}
      </ErrorBox>
      {notice && (
        <p role="status" className="notice">
          {notice}
        </p>
      )}
      <h2>Manifests</h2>
      <Table
        caption={<>Capability manifests of {agentId}</>}
        columns={['Capability', 'State', 'Visibility', 'Scopes', 'Tenants', writable && 'Actions']}
      >
        {manifests.map((m) => (
          <tr key={m.id} data-capability={m.id}>
            <td>
              {m.skill.name} <code>{m.id}</code>
              {m.replacedBy && <> → {m.replacedBy}</>}
            </td>
            <td>
              <span className={`state state-${m.state}`}>{m.state}</span>
            </td>
            <td>{m.visibility}</td>
            <td>{m.requiresScopes.join(', ') || '—'}</td>
            <td>{m.allTenants ? 'all' : m.tenants.join(', ') || '—'}</td>
            {writable && (
              <td className="actions">
                <button type="button" onClick={() => setEditing(m.id)} aria-label={`Edit ${m.id}`}>
                  Edit
                </button>
                {m.state === 'preview' && (
                  <button type="button" onClick={() => setAction({ kind: 'promote', manifest: m })} aria-label={`Promote ${m.id}`}>
                    Promote
                  </button>
                )}
                {(m.state === 'ga' || m.state === 'preview') && (
                  <button type="button" onClick={() => setAction({ kind: 'deprecate', manifest: m })} aria-label={`Deprecate ${m.id}`}>
                    Deprecate
                  </button>
                )}
                {m.state !== 'removed' && (
                  <button
                    type="button"
                    className="danger"
                    onClick={() => setAction({ kind: 'remove', manifest: m })}
                    aria-label={`Remove ${m.id}`}
                  >
                    Remove
                  </button>
                )}
              </td>
            )}
          </tr>
        ))}
      </Table>
      <Confirm
        open={action !== null}
        title={action ? `${action.kind[0]!.toUpperCase()}${action.kind.slice(1)} ${action.manifest.id}?` : ''}
        confirmLabel={action ? `${action.kind[0]!.toUpperCase()}${action.kind.slice(1)}` : 'OK'}
        onConfirm={() => void run()}
        onCancel={() => setAction(null)}
      >
        {action?.kind === 'deprecate' && (
          <>
            <div className="field">
              <label htmlFor={replacedId}>Replaced by</label>
              <select id={replacedId} value={replacedBy} onChange={(e) => setReplacedBy(e.target.value)}>
                <option value="">No replacement</option>
                {manifests
                  .filter((m) => m.id !== action.manifest.id && m.state !== 'removed')
                  .map((m) => (
                    <option key={m.id} value={m.id}>
                      {m.id}
                    </option>
                  ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor={reasonId}>Reason</label>
              <input id={reasonId} value={reason} onChange={(e) => setReason(e.target.value)} maxLength={500} />
            </div>
          </>
        )}
        {action?.kind === 'remove' && <p>Callers lose this capability at the next revision. This cannot be undone from the console.</p>}
        {action && (
          <p>
            Revision {agent?.revision} of {agentId} will change.
          </p>
        )}
      </Confirm>
      {editing && agent && (
        <ManifestEditor
          key={editing}
          agentId={agentId}
          revision={agent.revision}
          manifests={manifests}
          capabilityId={editing}
          onClose={() => setEditing(null)}
          onSaved={(revision) => {
            setNotice(`saved ${editing}: the agent is now at revision ${revision}`);
            setEditing(null);
            data.reload();
          }}
          onReload={data.reload}
        />
      )}
      {agent && <AgentSettings agentId={agentId} onChanged={data.reload} />}
      {agent && <AgentOperations agent={agent} manifests={manifests} writable={writable} onChanged={data.reload} />}
      {agent && (
        <RevisionHistory
          agentId={agentId}
          revision={agent.revision}
          onRollback={(revision) => navigate(`/plan?agent=${encodeURIComponent(agentId)}&rollback=${revision}`)}
        />
      )}
    </section>
  );
}

/**
 * The manifest editor: as you type (debounced), the whole set with this document in its place is
 * planned (applyManifests, dryRun) so the validator's problems show at their JSON paths, and the
 * plan shows what the save would change. A failed save keeps the text.
 */
function ManifestEditor({
  agentId,
  revision,
  manifests,
  capabilityId,
  onClose,
  onSaved,
  onReload,
}: {
  agentId: string;
  revision: number;
  manifests: Manifest[];
  capabilityId: string;
  onClose: () => void;
  onSaved: (revision: number) => void;
  onReload: () => void;
}) {
  const { api } = useConsole();
  const index = manifests.findIndex((m) => m.id === capabilityId);
  const [text, setText] = useState(() => JSON.stringify(manifests[index]?.document ?? {}, null, 2));
  const [problems, setProblems] = useState<ApiProblem[]>([]);
  const [syntax, setSyntax] = useState('');
  const [plan, setPlan] = useState<Plan>();
  const [checking, setChecking] = useState(false);
  // What the shown result was checked for (the text and the revision it was planned against):
  // until the current text is checked, nothing says "No problems." and Save stays off.
  const [checkedFor, setCheckedFor] = useState('');
  const checkKey = `${revision}\n${text}`;
  const [saveError, setSaveError] = useState<ApiError>();
  const textId = useId();
  const seq = useRef(0);

  useEffect(() => {
    const id = ++seq.current;
    const key = `${revision}\n${text}`;
    const timer = setTimeout(() => {
      const parsed = parseJson(text);
      if ('error' in parsed) {
        setSyntax(parsed.error);
        setProblems([]);
        setPlan(undefined);
        setCheckedFor(key);
        return;
      }
      setSyntax('');
      setChecking(true);
      const docs = manifests.filter((m) => m.state !== 'removed').map((m) => (m.id === capabilityId ? parsed.value : m.document));
      const at = manifests.filter((m) => m.state !== 'removed').findIndex((m) => m.id === capabilityId);
      api
        .request(ApplyManifestsMutation, { input: { agentId, manifests: docs, dryRun: true, expectedRevision: revision } })
        .then(
          (r) => {
            if (id !== seq.current) return;
            setProblems([]);
            setSaveError((e) => (e?.stale ? undefined : e));
            setPlan(r.applyManifests);
          },
          (error: unknown) => {
            if (id !== seq.current) return;
            const e = toApiError(error);
            setPlan(undefined);
            // Someone changed the agent since it was loaded: offer the reload (the text stays).
            if (e.stale) return (setProblems([]), setSaveError(e));
            setProblems(e.problems.length ? problemsForManifest(e.problems, at) : [{ path: '$', message: `${e.code}: ${e.message}` }]);
          },
        )
        .finally(() => id === seq.current && (setChecking(false), setCheckedFor(key)));
    }, 350);
    return () => clearTimeout(timer);
  }, [text, agentId, revision, manifests, capabilityId, api]);

  const save = async () => {
    const parsed = parseJson(text);
    if ('error' in parsed) return setSyntax(parsed.error);
    try {
      setSaveError(undefined);
      const r = await api.request(UpdateManifestMutation, { input: { agentId, expectedRevision: revision, manifest: parsed.value } });
      onSaved(r.updateManifest.revision);
    } catch (error) {
      setSaveError(toApiError(error));
    }
  };

  const checked = checkedFor === checkKey && !checking;
  const valid = checked && !syntax && problems.length === 0 && plan !== undefined;
  return (
    <section aria-labelledby="editor-title" className="editor">
      <h2 id="editor-title">Edit {capabilityId}</h2>
      <LazyManifestEditor
        label="Manifest document (JSON)"
        language="json"
        value={text}
        onChange={setText}
        problems={checked ? problems : []}
        invalid={checked && !valid}
        describedBy={`${textId}-problems`}
      />
      <div id={`${textId}-problems`} aria-live="polite">
        {!checked && <p>Checking…</p>}
        {syntax && (
          <p className="error" role="alert">
            {syntax}
          </p>
        )}
        {problems.length > 0 && (
          <ul className="problems" aria-label="Validator problems">
            {problems.map((p, i) => (
              <li key={i}>
                <code>{p.path}</code> {p.message}
              </li>
            ))}
          </ul>
        )}
        {valid && plan && <p className="ok">No problems.</p>}
      </div>
      <ErrorBox error={saveError}>
        {saveError?.stale && (
          <button type="button" onClick={onReload}>
            Reload the agent and re-plan (your text stays here)
          </button>
        )}
      </ErrorBox>
      <div className="actions">
        <button type="button" onClick={onClose}>
          Close
        </button>
        <button type="button" className="primary" disabled={!valid} onClick={() => void save()}>
          Save
        </button>
      </div>
      {plan && valid && (
        <details>
          <summary>What this save changes</summary>
          <PlanView plan={plan} />
        </details>
      )}
    </section>
  );
}

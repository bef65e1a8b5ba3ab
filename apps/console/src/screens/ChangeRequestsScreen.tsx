import { useId, useState } from 'react';
import { toApiError, type ApiError } from '../api/client';
import { ApproveChangeRequestMutation, ChangeRequestsQuery, RejectChangeRequestMutation } from '../api/change-request-operations';
import { ErrorBox } from '../components/ErrorBox';
import { LoadState } from '../components/LoadState';
import { useConsole, useLoad } from '../context';
import { readParam, useTitle, writeParam } from '../url';
import type { ChangeRequestsQuery as ChangeRequestsData } from '../gql/graphql';
import { Table } from '../components/Table';

type Request = ChangeRequestsData['changeRequests']['nodes'][number];
const STATUSES = ['pending', 'applied', 'rejected', 'stale'] as const;
type Status = (typeof STATUSES)[number];

/**
 * Change requests (issue 32, docs/approvals.md): gated plans waiting for a second admin, and
 * break-glass applies. Approve is offered only to whom the API says may approve; otherwise the
 * row says why (the author never approves their own).
 */
export function ChangeRequestsScreen() {
  const { api } = useConsole();
  useTitle('Change requests');
  const id = useId();
  // The filters live in the URL (?status=…&agentId=…): a view can be shared and survives a reload.
  const param = readParam('status') || 'pending';
  const initial = { status: (STATUSES.includes(param as Status) ? param : '') as Status | '', agent: readParam('agentId') };
  const [status, setStatus] = useState<Status | ''>(initial.status);
  const [agent, setAgent] = useState(initial.agent);
  const [filter, setFilterState] = useState<{ status: Status | ''; agent: string }>(initial);
  const setFilter = (next: { status: Status | ''; agent: string }) => {
    writeParam('status', next.status || 'any');
    writeParam('agentId', next.agent.trim());
    setFilterState(next);
  };
  const variables = { filter: { status: filter.status || null, agentId: filter.agent.trim() || null }, page: { first: 100 } };
  const requests = useLoad(`change-requests:${JSON.stringify(variables)}`, () => api.request(ChangeRequestsQuery, variables));
  const policy = requests.data?.approvalPolicy;
  return (
    <section aria-labelledby="change-requests-title">
      <h1 id="change-requests-title">Change requests</h1>
      {policy && (
        <p>
          Changes that need a second admin: {policy.kinds.length ? policy.kinds.join(', ') : 'none'}
          {policy.isDefault ? ' (the default policy)' : ''}.
        </p>
      )}
      <form
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter({ status, agent });
        }}
      >
        <div className="field">
          <label htmlFor={`${id}-status`}>Status</label>
          <select id={`${id}-status`} value={status} onChange={(e) => setStatus(e.target.value as Status | '')}>
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-agent`}>Agent</label>
          <input id={`${id}-agent`} value={agent} maxLength={200} onChange={(e) => setAgent(e.target.value)} />
        </div>
        <button type="submit">Filter</button>
      </form>
      <LoadState loads={[requests]} what="the change requests" />
      {(requests.data?.changeRequests.nodes ?? []).map((r) => (
        <RequestCard key={r.id} request={r} onDecided={requests.reload} />
      ))}
      {requests.data && requests.data.changeRequests.nodes.length === 0 && <p>No change request matches.</p>}
    </section>
  );
}

function RequestCard({ request: r, onDecided }: { request: Request; onDecided: () => void }) {
  const { api, me } = useConsole();
  const id = useId();
  const [comment, setComment] = useState('');
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const mayReject = r.status === 'pending' && (r.canApprove || r.author === me.subject);
  const decide = async (decision: 'approve' | 'reject') => {
    setBusy(true);
    setError(undefined);
    try {
      const input = { id: r.id, comment: comment.trim() || null };
      if (decision === 'approve') await api.request(ApproveChangeRequestMutation, { input });
      else await api.request(RejectChangeRequestMutation, { input });
      onDecided();
    } catch (e) {
      setError(toApiError(e));
    } finally {
      setBusy(false);
    }
  };
  const titleId = `${id}-title`;
  return (
    <article className="card" aria-labelledby={titleId} data-change-request={r.id}>
      <h2 id={titleId}>
        {r.breakGlass ? 'Break-glass apply' : 'Change request'} to {r.agentId} by {r.author}: {r.status}
      </h2>
      <p>
        <code>{r.id}</code> · planned at revision {r.baseRevision} ·{' '}
        <time dateTime={r.createdAt}>{new Date(r.createdAt).toLocaleString()}</time>
        {r.appliedRevision !== null && r.appliedRevision !== undefined && ` · applied as revision ${r.appliedRevision}`}
      </p>
      {r.breakGlass && (
        <p className="notice" role="note">
          Applied without a second admin by {r.author}. Reason: {r.breakGlassReason}
        </p>
      )}
      <ul aria-label="Gated changes">
        {r.changes.map((c, i) => (
          <li key={i}>
            <strong>{c.kind}</strong> {c.capabilityId}: {c.detail}
          </li>
        ))}
      </ul>
      {r.settings ? (
        <SettingsChange settings={r.settings} />
      ) : (
        <p>
          Plan: {summary('added', r.plan.added)}
          {summary('changed', r.plan.changed)}
          {summary('deprecated', r.plan.deprecated)}
          {summary('removed', r.plan.removed)}
        </p>
      )}
      {r.decidedBy && (
        <p>
          Decided by {r.decidedBy}
          {r.decisionComment ? `: ${r.decisionComment}` : ''}
        </p>
      )}
      {r.status === 'pending' && (
        <div className="decision">
          {!r.canApprove && (
            <p role="note" data-testid="cannot-approve">
              You cannot approve this request: {r.cannotApproveReason}.
            </p>
          )}
          {(r.canApprove || mayReject) && (
            <>
              <label htmlFor={`${id}-comment`}>Comment</label>
              <textarea id={`${id}-comment`} rows={2} maxLength={2000} value={comment} onChange={(e) => setComment(e.target.value)} />
              <div className="actions">
                {r.canApprove && (
                  <button type="button" className="primary" disabled={busy} onClick={() => void decide('approve')}>
                    Approve and apply
                  </button>
                )}
                {mayReject && (
                  <button type="button" className="danger" disabled={busy} onClick={() => void decide('reject')}>
                    {r.author === me.subject ? 'Withdraw' : 'Reject'}
                  </button>
                )}
              </div>
            </>
          )}
          <ErrorBox error={error} />
        </div>
      )}
    </article>
  );
}

const summary = (label: string, ids: readonly string[]) => (ids.length ? `${label} ${ids.join(', ')}. ` : '');

/** The value at a dotted path of a card base (e.g. "protocol.webhookAllow"), as the API stored it. */
const at = (doc: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), doc);
const shown = (v: unknown) => (Array.isArray(v) ? (v.length ? v.join(', ') : 'none') : v === undefined ? 'none' : JSON.stringify(v));

/** A settings change (kind allowlist, ADR 0325): each changed field, its value now and after approval. */
export function SettingsChange({ settings }: { settings: { fields: string[]; before: unknown; after: unknown } }) {
  return (
    <Table caption="Agent settings this request changes" visibleCaption columns={['Field', 'Now', 'After approval']}>
      {settings.fields.map((f) => (
        <tr key={f}>
          <th scope="row">
            <code>{f}</code>
          </th>
          <td>{shown(at(settings.before, f))}</td>
          <td>{shown(at(settings.after, f))}</td>
        </tr>
      ))}
    </Table>
  );
}

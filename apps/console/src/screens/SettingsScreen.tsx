import { useId, useState } from 'react';
import {
  ApprovalPolicyQuery,
  DeleteNotificationEndpointMutation,
  PlatformSettingsQuery,
  RedeliverDeprecationNoticeMutation,
  RunRetirementNowMutation,
  SetApprovalPolicyMutation,
  SetNotificationEndpointMutation,
} from '../api/settings-operations';
import { Confirm } from '../components/Confirm';
import { FieldProblems, FormOutcome, TextField, problemsAt, useSubmit } from '../components/Form';
import { LoadState } from '../components/LoadState';
import { useConsole, useLoad } from '../context';
import type { ApprovalPolicyQuery as PolicyData, ChangeKind, PlatformSettingsQuery as PlatformData } from '../gql/graphql';
import { useTitle } from '../url';
import { Table } from '../components/Table';

/** The kinds of manifest change the approval policy can gate, as the API describes them. */
const CHANGE_KINDS: { kind: ChangeKind; what: string }[] = [
  { kind: 'public', what: 'a capability becomes public' },
  { kind: 'access', what: 'a capability opens to more callers (visibility, tenants, fewer required scopes)' },
  { kind: 'upstream', what: "a capability's upstream agent is set, changed or dropped" },
  { kind: 'undeprecate', what: 'a deprecated capability goes back to preview or ga' },
  { kind: 'remove', what: 'a capability is removed' },
];

/**
 * What spans every agent: the approval policy (platform admins change it, every admin reads it),
 * tenants' notification endpoints and dead-lettered notices, and retirement runs (platform admins
 * change them, viewers read them; the API refuses them to team admins, so they are not asked for).
 */
export function SettingsScreen() {
  const { api, me } = useConsole();
  useTitle('Settings');
  const admin = me.roles.includes('platform-admin');
  const platformWide = admin || me.roles.includes('viewer');
  const policy = useLoad('approval-policy', () => api.request(ApprovalPolicyQuery, {}));
  const platform = useLoad(platformWide ? 'platform-settings' : null, () => api.request(PlatformSettingsQuery, {}));
  return (
    <section aria-labelledby="settings-screen-title">
      <h1 id="settings-screen-title">Settings</h1>
      {!admin && <p>Read only: platform admins change these settings.</p>}
      <LoadState loads={[policy]} what="the approval policy" />
      {policy.data && (
        <ApprovalPolicyForm
          key={policy.data.approvalPolicy.updatedAt ?? 'default'}
          policy={policy.data.approvalPolicy}
          admin={admin}
          onSaved={policy.reload}
        />
      )}
      {platformWide ? (
        <>
          <LoadState loads={[platform]} what="notification endpoints and retirement runs" />
          {platform.data && (
            <>
              <NotificationEndpoints data={platform.data} admin={admin} onChanged={platform.reload} />
              <DeadNotices notices={platform.data.deprecationNotices} admin={admin} onChanged={platform.reload} />
              <RetirementRuns runs={platform.data.retirementRuns} admin={admin} onChanged={platform.reload} />
            </>
          )}
        </>
      ) : (
        <p>Notification endpoints and retirement runs span every tenant and team: platform admins and viewers see them.</p>
      )}
    </section>
  );
}

function ApprovalPolicyForm({ policy, admin, onSaved }: { policy: PolicyData['approvalPolicy']; admin: boolean; onSaved: () => void }) {
  const { api } = useConsole();
  const [kinds, setKinds] = useState<ChangeKind[]>(policy.kinds);
  const submit = useSubmit();
  return (
    <section aria-labelledby="policy-title" className="card">
      <h2 id="policy-title">Approval policy</h2>
      <p>
        Which changes need a second admin: an apply with such a change files a change request instead (see <em>Approvals</em>).{' '}
        {policy.isDefault
          ? 'No platform admin has set it: the configured default applies.'
          : `Set by ${policy.updatedBy ?? 'unknown'}${policy.updatedAt ? ` on ${new Date(policy.updatedAt).toLocaleString()}` : ''}.`}
      </p>
      <form
        aria-label="Approval policy"
        onSubmit={(e) => {
          e.preventDefault();
          void submit
            .run(async () => {
              const r = await api.request(SetApprovalPolicyMutation, { input: { kinds } });
              const set = r.setApprovalPolicy.kinds;
              return `Saved: ${set.length ? `${set.join(', ')} need${set.length === 1 ? 's' : ''} a second admin` : 'no change needs a second admin'}.`;
            })
            .then((ok) => ok && onSaved());
        }}
      >
        <fieldset className="field">
          <legend>Changes that need a second admin</legend>
          {CHANGE_KINDS.map(({ kind, what }) => (
            <label key={kind} className="check">
              <input
                type="checkbox"
                checked={kinds.includes(kind)}
                disabled={!admin}
                onChange={(e) => setKinds(e.target.checked ? [...kinds, kind] : kinds.filter((k) => k !== kind))}
              />{' '}
              <strong>{kind}</strong>: {what}
            </label>
          ))}
          <FieldProblems problems={problemsAt(submit.error, 'kinds')} label="Changes that need a second admin" />
        </fieldset>
        <FormOutcome submit={submit} />
        {admin && (
          <button type="submit" className="primary" disabled={submit.busy}>
            Save the approval policy
          </button>
        )}
      </form>
    </section>
  );
}

function NotificationEndpoints({ data, admin, onChanged }: { data: PlatformData; admin: boolean; onChanged: () => void }) {
  const { api } = useConsole();
  const [tenantId, setTenantId] = useState('');
  const [url, setUrl] = useState('');
  const [removing, setRemoving] = useState<string | null>(null);
  // The secret is answered once: it stays on screen (not in a notice that a reload clears) until the next change.
  const [secret, setSecret] = useState<{ tenantId: string; secret: string } | null>(null);
  const submit = useSubmit();
  const removal = useSubmit();
  const tenantField = useId();
  const tenant = tenantId || data.tenants.nodes[0]?.id || '';
  return (
    <section aria-labelledby="endpoints-title" className="card">
      <h2 id="endpoints-title">Notification endpoints</h2>
      <p>Where each tenant receives deprecation notices (signed webhooks, Standard Webhooks).</p>
      <FormOutcome submit={removal} />
      <Table caption="Notification endpoints by tenant" columns={['Tenant', 'URL', 'Set by', 'Updated', admin && 'Actions']}>
        {data.notificationEndpoints.map((e) => (
          <tr key={e.tenantId} data-key={e.tenantId}>
            <td>
              <code>{e.tenantId}</code>
            </td>
            <td className="wrap">{e.url}</td>
            <td>{e.createdBy}</td>
            <td>
              <time dateTime={e.updatedAt}>{new Date(e.updatedAt).toLocaleString()}</time>
            </td>
            {admin && (
              <td className="row-actions">
                <button
                  type="button"
                  className="danger"
                  onClick={() => setRemoving(e.tenantId)}
                  aria-label={`Delete the notification endpoint of ${e.tenantId}`}
                >
                  Delete
                </button>
              </td>
            )}
          </tr>
        ))}
      </Table>
      {data.notificationEndpoints.length === 0 && <p>None.</p>}
      {secret && (
        <p role="status" className="notice" data-testid="endpoint-secret">
          Signing secret for {secret.tenantId}, shown this once: <code>{secret.secret}</code>
        </p>
      )}
      {admin && (
        <form
          aria-label="Set a notification endpoint"
          onSubmit={(e) => {
            e.preventDefault();
            setSecret(null);
            void submit
              .run(async () => {
                const r = (await api.request(SetNotificationEndpointMutation, { input: { tenantId: tenant, url } }))
                  .setNotificationEndpoint;
                setSecret({ tenantId: r.tenantId, secret: r.secret });
                return `Set the notification endpoint of ${r.tenantId} to ${r.url}.`;
              })
              .then((ok) => ok && (setUrl(''), onChanged()));
          }}
        >
          <h3>Set a tenant's endpoint</h3>
          <div className="field">
            <label htmlFor={tenantField}>Tenant</label>
            <select id={tenantField} value={tenant} onChange={(e) => setTenantId(e.target.value)}>
              {data.tenants.nodes.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name} ({t.id})
                </option>
              ))}
            </select>
            <FieldProblems problems={problemsAt(submit.error, 'tenantId')} label="Tenant" />
          </div>
          <TextField
            label="Endpoint URL"
            field="url"
            value={url}
            onChange={setUrl}
            error={submit.error}
            hint="https URL on a public address; setting it replaces the tenant's endpoint and its secret"
          />
          <FormOutcome submit={submit} />
          <button type="submit" className="primary" disabled={submit.busy || !tenant}>
            Set endpoint
          </button>
        </form>
      )}
      <Confirm
        open={removing !== null}
        title={`Delete the notification endpoint of ${removing ?? ''}?`}
        confirmLabel="Delete endpoint"
        onCancel={() => setRemoving(null)}
        onConfirm={() => {
          const key = removing!;
          setRemoving(null);
          void removal
            .run(
              async () => (
                await api.request(DeleteNotificationEndpointMutation, { tenantId: key }),
                `Deleted the notification endpoint of ${key}.`
              ),
            )
            .then((ok) => ok && onChanged());
        }}
      >
        <p>The tenant receives no deprecation notice until an endpoint is set again.</p>
      </Confirm>
    </section>
  );
}

function DeadNotices({
  notices,
  admin,
  onChanged,
}: {
  notices: PlatformData['deprecationNotices'];
  admin: boolean;
  onChanged: () => void;
}) {
  const { api } = useConsole();
  const submit = useSubmit();
  return (
    <section aria-labelledby="dead-title" className="card">
      <h2 id="dead-title">Undelivered notices</h2>
      <p>Deprecation notices whose retries are exhausted: fix the tenant's endpoint, then deliver them again.</p>
      <FormOutcome submit={submit} />
      {notices.length === 0 ? (
        <p>None.</p>
      ) : (
        <Table
          caption="Dead-lettered deprecation notices"
          columns={['Tenant', 'Capability', 'Event', 'Attempts', 'Last error', admin && 'Actions']}
        >
          {notices.map((n) => (
            <tr key={n.id} data-key={n.id}>
              <td>{n.tenantId}</td>
              <td>
                <code>
                  {n.agentId}/{n.capabilityId}
                </code>
              </td>
              <td>{n.event}</td>
              <td>{n.attempts}</td>
              <td className="wrap">{n.lastError ?? '—'}</td>
              {admin && (
                <td className="row-actions">
                  <button
                    type="button"
                    disabled={submit.busy}
                    onClick={() =>
                      void submit
                        .run(
                          async () => (
                            await api.request(RedeliverDeprecationNoticeMutation, { id: n.id }),
                            `Queued the notice to ${n.tenantId} again.`
                          ),
                        )
                        .then((ok) => ok && onChanged())
                    }
                  >
                    Deliver again
                  </button>
                </td>
              )}
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}

function RetirementRuns({ runs, admin, onChanged }: { runs: PlatformData['retirementRuns']; admin: boolean; onChanged: () => void }) {
  const { api } = useConsole();
  const [confirming, setConfirming] = useState(false);
  const submit = useSubmit();
  return (
    <section aria-labelledby="retirement-title" className="card">
      <h2 id="retirement-title">Retirement runs</h2>
      <p>
        The retirement job removes deprecated capabilities nobody calls any more, once their sunset date has passed. It runs on a schedule;
        a run can also be queued now.
      </p>
      <FormOutcome submit={submit} />
      {admin && (
        <button type="button" onClick={() => setConfirming(true)} disabled={submit.busy}>
          Run retirement now
        </button>
      )}
      {runs.length === 0 ? (
        <p>No run yet.</p>
      ) : (
        <Table caption="The latest retirement runs, newest first" columns={['Queued', 'Status', 'Trigger', 'Retired', 'Kept', 'Errors']}>
          {runs.map((r) => (
            <tr key={r.id} data-key={r.id}>
              <td>
                <time dateTime={r.createdAt}>{new Date(r.createdAt).toLocaleString()}</time>
              </td>
              <td>{r.status}</td>
              <td>
                {r.trigger}
                {r.requestedBy ? ` by ${r.requestedBy}` : ''}
              </td>
              <td>{r.retiredCount}</td>
              <td>{r.skippedCount}</td>
              <td className="wrap">{r.errors.map((e) => (e.agentId ? `${e.agentId}: ${e.message}` : e.message)).join('; ') || '—'}</td>
            </tr>
          ))}
        </Table>
      )}
      <Confirm
        open={confirming}
        title="Run retirement now?"
        confirmLabel="Run retirement"
        onCancel={() => setConfirming(false)}
        onConfirm={() => {
          setConfirming(false);
          void submit
            .run(async () => {
              const r = await api.request(RunRetirementNowMutation, {});
              return `Queued retirement run ${r.runRetirementNow.id} (${r.runRetirementNow.status}).`;
            })
            .then((ok) => ok && onChanged());
        }}
      >
        <p>Every agent's deprecated capabilities that the retirement rule allows are removed, each as a new revision of its agent.</p>
      </Confirm>
    </section>
  );
}

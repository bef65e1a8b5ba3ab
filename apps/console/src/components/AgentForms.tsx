import { useEffect, useId, useState } from 'react';
import {
  AgentSettingsQuery,
  CreateAgentMutation,
  CreatePreviewOptInMutation,
  DeletePreviewOptInMutation,
  UpdateAgentMutation,
} from '../api/admin-operations';
import { TeamsQuery } from '../api/operations';
import { canWrite, useConsole, useLoad } from '../context';
import type { AgentSettingsQuery as AgentSettingsData } from '../gql/graphql';
import { FieldProblems, FormOutcome, TextField, problemsAt, useSubmit } from './Form';
import { LoadState } from './LoadState';

/** One entry a line (blank lines dropped), as the list fields of the API take them. */
const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

const modes = (text: string) =>
  text
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);

/** Creates an agent at revision 1 in a team the caller administers (platform admins: any team). */
export function NewAgentForm({ onCreated }: { onCreated: (id: string) => void }) {
  const { api, me } = useConsole();
  const teams = useLoad('teams', () => api.request(TeamsQuery, {}));
  const writable = (teams.data?.teams.nodes ?? []).filter((t) => canWrite(me, t.id));
  const [id, setId] = useState('');
  const [teamId, setTeamId] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [version, setVersion] = useState('0.1.0');
  const [endpoint, setEndpoint] = useState('');
  const [inputModes, setInputModes] = useState('text/plain');
  const [outputModes, setOutputModes] = useState('text/plain');
  const submit = useSubmit();
  const teamField = useId();
  if (!me.roles.includes('platform-admin') && !me.roles.includes('team-admin')) return null;
  const teamProblems = problemsAt(submit.error, 'teamId');
  return (
    <details className="card">
      <summary>New agent</summary>
      <form
        aria-label="New agent"
        onSubmit={(e) => {
          e.preventDefault();
          void submit
            .run(async () => {
              const r = await api.request(CreateAgentMutation, {
                input: {
                  id,
                  teamId: teamId || writable[0]?.id || '',
                  name: name || null,
                  description,
                  version,
                  supportedInterfaces: [{ url: endpoint, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
                  defaultInputModes: modes(inputModes),
                  defaultOutputModes: modes(outputModes),
                },
              });
              return `Created agent ${r.createAgent.id} at revision ${r.createAgent.revision}.`;
            })
            .then((ok) => ok && onCreated(id));
        }}
      >
        <TextField
          label="Agent id"
          field="id"
          value={id}
          onChange={setId}
          error={submit.error}
          hint="a lowercase slug, e.g. payments-agent"
          maxLength={200}
        />
        <div className="field">
          <label htmlFor={teamField}>Owning team</label>
          <select
            id={teamField}
            value={teamId || writable[0]?.id || ''}
            onChange={(e) => setTeamId(e.target.value)}
            aria-invalid={teamProblems.length > 0 || undefined}
          >
            {writable.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name} ({t.id})
              </option>
            ))}
          </select>
          <FieldProblems problems={teamProblems} label="Owning team" />
        </div>
        <TextField label="Agent name" field="name" value={name} onChange={setName} error={submit.error} />
        <TextField
          label="Agent description"
          field="description"
          value={description}
          onChange={setDescription}
          error={submit.error}
          multiline
        />
        <TextField
          label="Version"
          field="version"
          value={version}
          onChange={setVersion}
          error={submit.error}
          hint="semantic version, e.g. 1.2.3"
          maxLength={100}
        />
        <TextField
          label="Agent node URL (JSON-RPC)"
          field="supportedInterfaces"
          value={endpoint}
          onChange={setEndpoint}
          error={submit.error}
          hint="where callers reach the agent's nodes, e.g. https://payments.example.com/a2a/jsonrpc"
        />
        <TextField
          label="Input media types"
          field="defaultInputModes"
          value={inputModes}
          onChange={setInputModes}
          error={submit.error}
          hint="comma-separated, e.g. text/plain, application/json"
        />
        <TextField
          label="Output media types"
          field="defaultOutputModes"
          value={outputModes}
          onChange={setOutputModes}
          error={submit.error}
          hint="comma-separated"
        />
        <LoadState loads={[teams]} what="your teams" />
        <FormOutcome submit={submit} />
        <button type="submit" className="primary" disabled={submit.busy}>
          Create agent
        </button>
      </form>
    </details>
  );
}

type Settings = NonNullable<AgentSettingsData['agent']>;

/** The agent's card base and protocol settings (updateAgent at the revision it was read at), and its preview opt-ins. */
export function AgentSettings({ agentId, onChanged }: { agentId: string; onChanged: () => void }) {
  const { api, me } = useConsole();
  const data = useLoad(`agent-settings:${agentId}`, () => api.request(AgentSettingsQuery, { agentId }));
  const agent = data.data?.agent;
  const reload = () => (data.reload(), onChanged());
  return (
    <section aria-labelledby="settings-title" className="card">
      <h2 id="settings-title">Agent settings</h2>
      <LoadState loads={[data]} what="the agent's settings" />
      {agent && (
        <>
          <SettingsForm
            key={`${agent.revision}`}
            agent={agent}
            writable={canWrite(me, agent.teamId)}
            platformAdmin={me.roles.includes('platform-admin')}
            onSaved={reload}
          />
          <PreviewOptIns
            agent={agent}
            optIns={data.data!.previewOptIns}
            tenants={data.data!.tenants.nodes}
            writable={canWrite(me, agent.teamId)}
            onChanged={reload}
          />
        </>
      )}
    </section>
  );
}

function SettingsForm({
  agent,
  writable,
  platformAdmin,
  onSaved,
}: {
  agent: Settings;
  writable: boolean;
  platformAdmin: boolean;
  onSaved: () => void;
}) {
  const { api } = useConsole();
  const [name, setName] = useState(agent.name);
  const [description, setDescription] = useState(agent.description);
  const [version, setVersion] = useState(agent.version);
  const [documentationUrl, setDocumentationUrl] = useState(agent.documentationUrl ?? '');
  const [versions, setVersions] = useState<string[]>(agent.protocol.versions);
  const [flags, setFlags] = useState({
    streaming: agent.protocol.streaming,
    pushNotifications: agent.protocol.pushNotifications,
    extendedAgentCard: agent.protocol.extendedAgentCard,
  });
  const [webhookAllow, setWebhookAllow] = useState(agent.protocol.webhookAllow.join('\n'));
  const [upstreamAllow, setUpstreamAllow] = useState(agent.protocol.upstreamAllow.join('\n'));
  const submit = useSubmit();
  const disabled = !writable || submit.busy;
  const versionProblems = problemsAt(submit.error, 'protocol.versions');
  return (
    <form
      aria-label="Agent settings"
      onSubmit={(e) => {
        e.preventDefault();
        void submit
          .run(async () => {
            const r = await api.request(UpdateAgentMutation, {
              input: {
                id: agent.id,
                expectedRevision: agent.revision,
                name,
                description,
                version,
                documentationUrl: documentationUrl || null,
                protocol: { ...flags, versions, webhookAllow: lines(webhookAllow), upstreamAllow: lines(upstreamAllow) },
              },
            });
            return `Saved: the agent is now at revision ${r.updateAgent.revision}.`;
          })
          .then((ok) => ok && onSaved());
      }}
    >
      {!writable && <p>Your role cannot change these settings.</p>}
      <TextField label="Name" field="name" value={name} onChange={setName} error={submit.error} disabled={!writable} />
      <TextField
        label="Description"
        field="description"
        value={description}
        onChange={setDescription}
        error={submit.error}
        disabled={!writable}
        multiline
      />
      <TextField
        label="Version"
        field="version"
        value={version}
        onChange={setVersion}
        error={submit.error}
        disabled={!writable}
        maxLength={100}
      />
      <TextField
        label="Documentation URL"
        field="documentationUrl"
        value={documentationUrl}
        onChange={setDocumentationUrl}
        error={submit.error}
        disabled={!writable}
      />
      <fieldset className="field">
        <legend>Protocol</legend>
        {(['streaming', 'pushNotifications', 'extendedAgentCard'] as const).map((f) => (
          <label key={f} className="check">
            <input
              type="checkbox"
              checked={flags[f]}
              disabled={!writable}
              onChange={(e) => setFlags({ ...flags, [f]: e.target.checked })}
            />{' '}
            {f}
          </label>
        ))}
        {['1.0', '0.3'].map((v) => (
          <label key={v} className="check">
            <input
              type="checkbox"
              checked={versions.includes(v)}
              disabled={!writable}
              onChange={(e) => setVersions(e.target.checked ? [...versions, v].sort().reverse() : versions.filter((x) => x !== v))}
            />{' '}
            A2A {v}
          </label>
        ))}
        <FieldProblems problems={versionProblems} label="A2A versions" />
      </fieldset>
      <TextField
        label="Webhook allow-list"
        field="protocol.webhookAllow"
        value={webhookAllow}
        onChange={setWebhookAllow}
        error={submit.error}
        disabled={!writable}
        multiline
        hint={`private hosts, *.domains, IPs or CIDRs push webhooks may reach, one a line${platformAdmin ? '' : ' (only platform admins may add entries)'}`}
      />
      <TextField
        label="Upstream allow-list"
        field="protocol.upstreamAllow"
        value={upstreamAllow}
        onChange={setUpstreamAllow}
        error={submit.error}
        disabled={!writable}
        multiline
        hint={`private hosts upstream agents may be reached at, one a line${platformAdmin ? '' : ' (only platform admins may add entries)'}`}
      />
      <FormOutcome submit={submit} />
      {writable && (
        <button type="submit" className="primary" disabled={disabled}>
          Update settings at revision {agent.revision}
        </button>
      )}
    </form>
  );
}

function PreviewOptIns({
  agent,
  optIns,
  tenants,
  writable,
  onChanged,
}: {
  agent: Settings;
  optIns: { tenantId: string; createdAt: string }[];
  tenants: { id: string; name: string }[];
  writable: boolean;
  onChanged: () => void;
}) {
  const { api } = useConsole();
  const [tenantId, setTenantId] = useState('');
  const submit = useSubmit();
  const select = useId();
  const candidates = tenants.filter((t) => !optIns.some((o) => o.tenantId === t.id));
  useEffect(() => setTenantId(''), [agent.revision]);
  const change = (kind: 'add' | 'remove', tenant: string) =>
    void submit
      .run(async () => {
        const input = { agentId: agent.id, tenantId: tenant, expectedRevision: agent.revision };
        const revision =
          kind === 'add'
            ? (await api.request(CreatePreviewOptInMutation, { input })).createPreviewOptIn.revision
            : (await api.request(DeletePreviewOptInMutation, { input })).deletePreviewOptIn.revision;
        return `${kind === 'add' ? 'Opted in' : 'Opted out'} ${tenant}: the agent is now at revision ${revision}.`;
      })
      .then((ok) => ok && onChanged());
  return (
    <section aria-labelledby="optins-title">
      <h3 id="optins-title">Preview opt-ins</h3>
      <p>Tenants that see this agent's preview capabilities.</p>
      <ul aria-label="Preview opt-ins">
        {optIns.map((o) => (
          <li key={o.tenantId}>
            <code>{o.tenantId}</code>{' '}
            {writable && (
              <button type="button" className="danger" onClick={() => change('remove', o.tenantId)} aria-label={`Opt out ${o.tenantId}`}>
                Opt out
              </button>
            )}
          </li>
        ))}
        {optIns.length === 0 && <li>None.</li>}
      </ul>
      {writable && (
        <form
          aria-label="New preview opt-in"
          onSubmit={(e) => {
            e.preventDefault();
            if (tenantId) change('add', tenantId);
          }}
        >
          <div className="field">
            <label htmlFor={select}>Tenant to opt in</label>
            <select id={select} value={tenantId} onChange={(e) => setTenantId(e.target.value)}>
              <option value="">Choose a tenant…</option>
              {candidates.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name} ({t.id})
                </option>
              ))}
            </select>
          </div>
          <button type="submit" disabled={!tenantId || submit.busy}>
            Opt in
          </button>
        </form>
      )}
      <FormOutcome submit={submit} />
    </section>
  );
}

import { useState } from 'react';
import {
  CreateScopeMutation,
  CreateTeamMutation,
  CreateTenantMutation,
  DeleteScopeMutation,
  DeleteTenantMutation,
  DirectoryQuery,
  RenameTeamMutation,
  UpdateScopeMutation,
  UpdateTenantMutation,
} from '../api/admin-operations';
import { Confirm } from '../components/Confirm';
import { FormOutcome, TextField, useSubmit } from '../components/Form';
import { LoadState } from '../components/LoadState';
import { useConsole, useLoad } from '../context';
import { useTitle, useUrlState } from '../url';
import { Table } from '../components/Table';

/** One kind of directory entry: its two fields (the key never changes once created) and its mutations. */
interface Kind {
  title: string;
  one: string;
  key: { field: string; label: string; hint: string };
  text: { field: string; label: string };
  rows: { key: string; text: string }[];
  create: (key: string, text: string) => Promise<unknown>;
  update: (key: string, text: string) => Promise<unknown>;
  remove?: (key: string) => Promise<unknown>;
}

/** Teams, tenants and scopes: listed for everyone who may read them, created, edited and deleted by platform admins. */
export function DirectoryScreen() {
  const { api, me } = useConsole();
  useTitle('Teams, tenants & scopes');
  const data = useLoad('directory', () => api.request(DirectoryQuery, {}));
  const [filter, setFilter] = useUrlState('q');
  const admin = me.roles.includes('platform-admin');
  const d = data.data;
  const needle = filter.trim().toLowerCase();
  const match = (r: { key: string; text: string }) => !needle || `${r.key} ${r.text}`.toLowerCase().includes(needle);
  const kinds: Kind[] = [
    {
      title: 'Teams',
      one: 'team',
      key: { field: 'id', label: 'Team id', hint: 'a lowercase slug, e.g. finance-agents-team; team-admin tokens carry it' },
      text: { field: 'name', label: 'Team name' },
      rows: (d?.teams.nodes ?? []).map((t) => ({ key: t.id, text: t.name })),
      create: (id, name) => api.request(CreateTeamMutation, { input: { id, name } }),
      update: (id, name) => api.request(RenameTeamMutation, { input: { id, name } }),
    },
    {
      title: 'Tenants',
      one: 'tenant',
      key: { field: 'id', label: 'Tenant id', hint: 'the tenant claim A2A tokens carry, e.g. acme-partner' },
      text: { field: 'name', label: 'Tenant name' },
      rows: (d?.tenants.nodes ?? []).map((t) => ({ key: t.id, text: t.name })),
      create: (id, name) => api.request(CreateTenantMutation, { input: { id, name } }),
      update: (id, name) => api.request(UpdateTenantMutation, { input: { id, name } }),
      remove: (id) => api.request(DeleteTenantMutation, { id }),
    },
    {
      title: 'Scopes',
      one: 'scope',
      key: { field: 'name', label: 'Scope name', hint: 'lowercase words joined by dots, e.g. recon.run' },
      text: { field: 'description', label: 'Scope description' },
      rows: (d?.scopes.nodes ?? []).map((s) => ({ key: s.name, text: s.description })),
      create: (name, description) => api.request(CreateScopeMutation, { input: { name, description } }),
      update: (name, description) => api.request(UpdateScopeMutation, { input: { name, description } }),
      remove: (name) => api.request(DeleteScopeMutation, { name }),
    },
  ];
  return (
    <section aria-labelledby="directory-title">
      <h1 id="directory-title">Teams, tenants &amp; scopes</h1>
      {!admin && <p>Read only: platform admins create and change teams, tenants and scopes.</p>}
      <div className="filters">
        <TextField label="Filter" field="q" value={filter} onChange={setFilter} error={undefined} maxLength={200} />
      </div>
      <LoadState loads={[data]} what="teams, tenants and scopes" />
      {d && (
        <div className="grid">
          {kinds.map((k) => (
            <KindSection key={k.title} kind={{ ...k, rows: k.rows.filter(match) }} admin={admin} onChanged={data.reload} />
          ))}
        </div>
      )}
    </section>
  );
}

function KindSection({ kind, admin, onChanged }: { kind: Kind; admin: boolean; onChanged: () => void }) {
  const [editing, setEditing] = useState<string | null>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  const removal = useSubmit();
  return (
    <section aria-labelledby={`dir-${kind.one}`} className="card">
      <h2 id={`dir-${kind.one}`}>{kind.title}</h2>
      <FormOutcome submit={removal} />
      <Table caption={<>{kind.title}</>} columns={['{kind.key.label}', '{kind.text.label}', admin && 'Actions']}>
        {kind.rows.map((r) => (
          <tr key={r.key} data-key={r.key}>
            <td>
              <code>{r.key}</code>
            </td>
            <td>
              {editing === r.key ? (
                <EntryForm kind={kind} initial={r} onDone={() => (setEditing(null), onChanged())} onCancel={() => setEditing(null)} />
              ) : (
                r.text
              )}
            </td>
            {admin && (
              <td className="row-actions">
                {editing !== r.key && (
                  <button type="button" onClick={() => setEditing(r.key)} aria-label={`Edit ${kind.one} ${r.key}`}>
                    Edit
                  </button>
                )}
                {kind.remove && (
                  <button type="button" className="danger" onClick={() => setRemoving(r.key)} aria-label={`Delete ${kind.one} ${r.key}`}>
                    Delete
                  </button>
                )}
              </td>
            )}
          </tr>
        ))}
      </Table>
      {kind.rows.length === 0 && <p>None.</p>}
      {admin && <EntryForm kind={kind} onDone={onChanged} />}
      <Confirm
        open={removing !== null}
        title={`Delete ${kind.one} ${removing ?? ''}?`}
        confirmLabel={`Delete ${kind.one}`}
        onCancel={() => setRemoving(null)}
        onConfirm={() => {
          const key = removing!;
          setRemoving(null);
          void removal.run(async () => (await kind.remove!(key), `Deleted ${kind.one} ${key}.`)).then((ok) => ok && onChanged());
        }}
      >
        <p>The API refuses while a manifest or a preview opt-in still names it.</p>
      </Confirm>
    </section>
  );
}

/** Creates an entry (empty `initial`) or edits one (its key fixed). */
function EntryForm({
  kind,
  initial,
  onDone,
  onCancel,
}: {
  kind: Kind;
  initial?: { key: string; text: string };
  onDone: () => void;
  onCancel?: () => void;
}) {
  const [key, setKey] = useState(initial?.key ?? '');
  const [text, setText] = useState(initial?.text ?? '');
  const submit = useSubmit();
  const verb = initial ? 'Save' : 'Create';
  return (
    <form
      aria-label={initial ? `Edit ${kind.one} ${initial.key}` : `New ${kind.one}`}
      onSubmit={(e) => {
        e.preventDefault();
        void submit
          .run(async () => {
            await (initial ? kind.update(key, text) : kind.create(key, text));
            return `${initial ? 'Saved' : 'Created'} ${kind.one} ${key}.`;
          })
          .then((ok) => {
            if (!ok) return;
            if (!initial) {
              setKey('');
              setText('');
            }
            onDone();
          });
      }}
    >
      {!initial && <h3>New {kind.one}</h3>}
      {!initial && (
        <TextField
          label={kind.key.label}
          field={kind.key.field}
          value={key}
          onChange={setKey}
          error={submit.error}
          hint={kind.key.hint}
          maxLength={200}
        />
      )}
      <TextField label={kind.text.label} field={kind.text.field} value={text} onChange={setText} error={submit.error} />
      <FormOutcome submit={submit} />
      <div className="actions">
        <button type="submit" className="primary" disabled={submit.busy}>
          {verb} {kind.one}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

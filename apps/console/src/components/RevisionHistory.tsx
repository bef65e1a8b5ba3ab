import { useState } from 'react';
import { RegistryRevisionsQuery } from '../api/operations';
import { useConsole, useLoad } from '../context';
import type { RegistryRevisionsQuery as RevisionsData } from '../gql/graphql';
import { LoadState } from './LoadState';
import { Table } from './Table';

type Revision = RevisionsData['registryRevisions']['nodes'][number];

const PAGE = 20;

/** An agent's revisions, newest first: who, when, what; each older one offers a rollback plan. */
export function RevisionHistory({
  agentId,
  revision,
  onRollback,
}: {
  agentId: string;
  /** The agent's current revision: a new one reloads the history. */
  revision: number;
  onRollback?: (revision: number) => void;
}) {
  const { api } = useConsole();
  const [after, setAfter] = useState<string[]>([]);
  const cursor = after.at(-1) ?? null;
  const load = useLoad(`revisions:${agentId}@${revision}:${cursor ?? ''}`, () =>
    api.request(RegistryRevisionsQuery, { agentId, page: { first: PAGE, after: cursor } }),
  );
  const page = load.data?.registryRevisions;
  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title">Revision history</h2>
      <LoadState loads={[load]} what="the revision history" />
      {page && <RevisionTable revisions={page.nodes} newest={after.length === 0} onRollback={onRollback} />}
      <div className="actions">
        {after.length > 0 && (
          <button type="button" onClick={() => setAfter(after.slice(0, -1))}>
            Newer revisions
          </button>
        )}
        {page?.pageInfo.hasNextPage && page.pageInfo.endCursor && (
          <button type="button" onClick={() => setAfter([...after, page.pageInfo.endCursor!])}>
            Older revisions
          </button>
        )}
      </div>
    </section>
  );
}

/** The table of one page; on the newest page the first row is the current revision (nothing to roll back to). */
export function RevisionTable({
  revisions,
  newest,
  onRollback,
}: {
  revisions: Revision[];
  newest: boolean;
  onRollback?: (revision: number) => void;
}) {
  if (revisions.length === 0) return <p>No revision recorded yet.</p>;
  return (
    <Table
      caption="Revisions of the agent, newest first"
      columns={['Revision', 'When', 'Who', 'Summary', 'Capabilities', onRollback && 'Rollback']}
    >
      {revisions.map((r, i) => (
        <tr key={r.revision} data-revision={r.revision}>
          <td>{r.revision}</td>
          <td>
            <time dateTime={String(r.createdAt)}>{new Date(String(r.createdAt)).toLocaleString()}</time>
          </td>
          <td>{r.actor}</td>
          <td>{r.summary}</td>
          <td>{r.capabilities.map((c) => `${c.capabilityId} (${c.action.replace(/^manifest\./, '')})`).join(', ') || '—'}</td>
          {onRollback && (
            <td>
              {newest && i === 0 ? (
                'current'
              ) : (
                <button type="button" onClick={() => onRollback(r.revision)}>
                  Plan a rollback to revision {r.revision}
                </button>
              )}
            </td>
          )}
        </tr>
      ))}
    </Table>
  );
}

import { useId } from 'react';
import { AgentsQuery } from '../api/operations';
import { useConsole, useLoad } from '../context';
import { LoadState } from './LoadState';

/** A labelled select of the agents the caller may read (the API lists only those). */
export function AgentPicker({ value, onChange }: { value: string; onChange: (agentId: string) => void }) {
  const { api } = useConsole();
  const id = useId();
  const agents = useLoad('agents', () => api.request(AgentsQuery, { page: { first: 100 } }));
  const list = agents.data?.agents.nodes ?? [];
  return (
    <div className="field">
      <label htmlFor={id}>Agent</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Choose an agent…</option>
        {list.map((a) => (
          <option key={a.id} value={a.id}>
            {a.name} ({a.id})
          </option>
        ))}
      </select>
      <LoadState loads={[agents]} what="the agents" />
    </div>
  );
}

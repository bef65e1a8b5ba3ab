import { createContext, useCallback, useContext, useEffect, useRef, useState } from 'react';
import type { Api } from './api/client';
import { ApiError, toApiError } from './api/client';
import type { MeQuery as MeQueryType } from './gql/graphql';

export type Me = MeQueryType['me'];

export interface ConsoleContextValue {
  api: Api;
  me: Me;
  navigate: (path: string) => void;
}

export const ConsoleContext = createContext<ConsoleContextValue | null>(null);

export function useConsole(): ConsoleContextValue {
  const value = useContext(ConsoleContext);
  if (!value) throw new Error('useConsole outside the signed-in console');
  return value;
}

/** What the caller may change: viewers nothing, team admins their teams' agents, platform admins everything. */
export function canWrite(me: Me, teamId: string): boolean {
  return me.roles.includes('platform-admin') || (me.roles.includes('team-admin') && me.teams.includes(teamId));
}

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` whenever `key` changes (and on reload); a newer load wins over an older one still running. */
export function useLoad<T>(key: string | null, load: () => Promise<T>, pollMs?: number): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: key !== null });
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    if (key === null) return;
    const id = ++latest.current;
    setState((s) => ({ ...s, loading: true }));
    loadRef.current().then(
      (data) => id === latest.current && setState({ data, loading: false }),
      (error: unknown) => id === latest.current && setState((s) => ({ data: s.data, error: toApiError(error), loading: false })),
    );
  }, [key, tick]);
  useEffect(() => {
    if (!pollMs || key === null) return;
    const timer = setInterval(() => setTick((t) => t + 1), pollMs);
    return () => clearInterval(timer);
  }, [pollMs, key]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

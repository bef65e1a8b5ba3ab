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

export interface Timing {
  spinnerDelayMs: number;
  apiTimeoutMs: number;
}

export const DEFAULT_TIMING: Timing = { spinnerDelayMs: 300, apiTimeoutMs: 15_000 };

/** How long a load may take before its spinner shows, and before it times out with a retry (config.json). */
export const TimingContext = createContext<Timing>(DEFAULT_TIMING);

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
  /** Still loading after the spinner delay. */
  slow: boolean;
  /** Still loading after the API timeout: the screen offers a retry (a late answer is still taken). */
  timedOut: boolean;
  timeoutMs: number;
  reload: () => void;
}

/** Runs `load` whenever `key` changes (and on reload); a newer load wins over an older one still running. */
export function useLoad<T>(key: string | null, load: () => Promise<T>, pollMs?: number): Loaded<T> {
  const timing = useContext(TimingContext);
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean; slow: boolean; timedOut: boolean }>({
    loading: key !== null,
    slow: false,
    timedOut: false,
  });
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  const inFlight = useRef(false);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    if (key === null) return;
    const id = ++latest.current;
    // A poll that is already showing data stays quiet; a first load or a reload shows how it goes.
    setState((s) => ({ ...s, loading: true, error: s.error, timedOut: false }));
    const slow = setTimeout(() => id === latest.current && setState((s) => ({ ...s, slow: true })), timing.spinnerDelayMs);
    const late = setTimeout(() => id === latest.current && setState((s) => ({ ...s, timedOut: true })), timing.apiTimeoutMs);
    inFlight.current = true;
    const done = () => {
      clearTimeout(slow);
      clearTimeout(late);
      if (id === latest.current) inFlight.current = false;
    };
    loadRef.current().then(
      (data) => {
        done();
        if (id === latest.current) setState({ data, loading: false, slow: false, timedOut: false });
      },
      (error: unknown) => {
        done();
        if (id === latest.current)
          setState((s) => ({ data: s.data, error: toApiError(error), loading: false, slow: false, timedOut: false }));
      },
    );
    return done;
  }, [key, tick, timing.spinnerDelayMs, timing.apiTimeoutMs]);
  useEffect(() => {
    if (!pollMs || key === null) return;
    // A poll never stacks on a load still running: a hanging API times out instead of being re-asked forever.
    const timer = setInterval(() => inFlight.current || setTick((t) => t + 1), pollMs);
    return () => clearInterval(timer);
  }, [pollMs, key]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, data: state.data, error: state.error, timeoutMs: timing.apiTimeoutMs, reload };
}

import { useCallback, useEffect, useState } from 'react';

/** The document title of a screen: "Fleet · finance-agent · Capability control plane". */
export function useTitle(...parts: (string | undefined | null | false)[]): void {
  const title = [...parts.filter((p): p is string => !!p), 'Capability control plane'].join(' · ');
  useEffect(() => {
    document.title = title;
  }, [title]);
}

/** useTitle as an element, for branches that are no screen of their own (sign-in, the API-down shell). */
export function Title({ name }: { name: string }): null {
  useTitle(name);
  return null;
}

function params(): URLSearchParams {
  return new URLSearchParams(window.location.search);
}

/** Writes one query parameter (empty: removed) without a new history entry: a filter is not a page. */
export function writeParam(name: string, value: string | null): void {
  const p = params();
  if (value === null || value === '') p.delete(name);
  else p.set(name, value);
  const query = p.toString();
  window.history.replaceState(window.history.state, '', `${window.location.pathname}${query ? `?${query}` : ''}${window.location.hash}`);
}

/** Query parameters longer than this are ignored (a hostile link cannot make the screen send megabytes). */
const MAX_PARAM = 512;

export function readParam(name: string): string {
  const value = params().get(name) ?? '';
  return value.length > MAX_PARAM ? '' : value;
}

/** A screen's state kept in the URL's query (`?agent=…&tenant=…`), so a view can be shared and survives a reload. */
export function useUrlState(name: string): [string, (value: string) => void] {
  const [value, setValue] = useState(() => readParam(name));
  useEffect(() => {
    const onPop = () => setValue(readParam(name));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, [name]);
  const set = useCallback(
    (next: string) => {
      writeParam(name, next);
      setValue(next);
    },
    [name],
  );
  return [value, set];
}

/** A list in one query parameter, comma-separated (`?scopes=recon.run,invoices.read`). */
export function useUrlList(name: string): [string[], (value: string[]) => void] {
  const [raw, setRaw] = useUrlState(name);
  const list = raw ? raw.split(',').filter(Boolean).slice(0, 50) : [];
  return [list, useCallback((next: string[]) => setRaw(next.join(',')), [setRaw])];
}

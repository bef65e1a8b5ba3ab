import type { ApiProblem } from '../api/client';

/**
 * The API names a problem in the i-th manifest of applyManifests as `manifests[i].<path>` (or
 * `$[i]…`); the editor of one manifest shows those at the path inside its document, `$.<path>`.
 * Problems about other manifests are dropped; problems with no manifest index are kept as they are.
 */
export function problemsForManifest(problems: ApiProblem[], index: number): ApiProblem[] {
  const out: ApiProblem[] = [];
  for (const p of problems) {
    const m = /^(?:\$\.?|input\.)?(?:manifests)?\[(\d+)\](.*)$/.exec(p.path);
    if (!m) {
      out.push(p);
      continue;
    }
    if (Number(m[1]) !== index) continue;
    const rest = m[2]!.replace(/^\./, '');
    out.push({ path: rest ? `$.${rest}`.replace('$.[', '$[') : '$', message: p.message });
  }
  return out;
}

/** JSON.parse with the position of a syntax error as line and column. */
export function parseJson(text: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const at = /position (\d+)/.exec(message);
    // A truncated document ("Unexpected end of JSON input") stops at its end.
    const offset = at ? Number(at[1]) : /unexpected end/i.test(message) ? text.length : undefined;
    if (offset === undefined) return { error: `not valid JSON: ${message}` };
    const before = text.slice(0, offset);
    const line = before.split('\n').length;
    const column = before.length - before.lastIndexOf('\n');
    return { error: `not valid JSON at line ${line}, column ${column}: ${message.replace(/ in JSON at position \d+.*$/, '')}` };
  }
}

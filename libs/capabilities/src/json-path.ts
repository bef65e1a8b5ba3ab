/** JSON-path rendering of issue locations: `$.skill.inputModes[1]`, `$[3].id`. */
export function jsonPath(segments: readonly PropertyKey[], root = '$'): string {
  let out = root;
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (typeof s === 'string' && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(s)) out += `.${s}`;
    else out += `[${JSON.stringify(String(s))}]`;
  }
  return out;
}

/** Re-roots a path of one document (`$.id`) under a list index (`$[3].id`). */
export function underIndex(path: string, index: number): string {
  return `$[${index}]${path.slice(1)}`;
}

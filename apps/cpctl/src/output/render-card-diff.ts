/** Human rendering of card changes and leaks (shared by card diff and plan). */
import type { Leak } from '@cp/capabilities';
import type { Reporter } from './reporter';

/** A card change as the core's diffCards gives it (or the gate's extra kinds). */
export interface ShownChange {
  kind: string;
  breaking: boolean;
  detail: string;
}

export function renderChanges(r: Reporter, changes: readonly ShownChange[], indent = '  '): void {
  if (changes.length === 0) {
    r.line(`${indent}(no change)`);
    return;
  }
  const width = Math.max(...changes.map((c) => c.kind.length));
  for (const c of changes) {
    const flag = c.breaking ? r.c.red(r.c.bold('BREAKING')) : '        ';
    const kind = c.kind.padEnd(width);
    r.line(`${indent}${flag} ${c.breaking ? r.c.red(kind) : r.c.yellow(kind)}  ${c.detail}`);
  }
}

export function renderLeaks(r: Reporter, leaks: readonly Leak[], indent = '  '): void {
  for (const l of leaks) {
    r.line(`${indent}${r.c.red('LEAK')} ${l.skillId}.${l.field}: ${JSON.stringify(l.text)} appears in the public card`);
  }
}

export const summary = (changes: readonly ShownChange[]) => {
  const breaking = changes.filter((c) => c.breaking).length;
  return `${changes.length} change(s)${breaking > 0 ? `, ${breaking} breaking` : ''}`;
};

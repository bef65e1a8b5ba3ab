/** Parses one YAML or JSON file into plain data, turning syntax errors into located issues. */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import YAML from 'yaml';
import type { FileIssue } from './file-issue';

export type ParsedDocument = { ok: true; value: unknown } | { ok: false; issues: FileIssue[] };

export async function readDocument(file: string): Promise<ParsedDocument> {
  const text = await readFile(file, 'utf8');
  if (text.trim() === '') return { ok: false, issues: [{ file, path: '$', message: 'the file is empty' }] };
  if (extname(file) === '.json') {
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch (error) {
      return { ok: false, issues: [{ file, path: '$', message: `invalid JSON: ${(error as Error).message}` }] };
    }
  }
  // YAML 1.2 core schema: `no`/`on` stay strings and dates stay strings, so a manifest reads the
  // same as its JSON twin. Duplicate keys are errors, not last-one-wins.
  const doc = YAML.parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    // One parse mistake often yields several errors at the same spot: report each place once.
    const seen = new Set<string>();
    const issues: FileIssue[] = [];
    for (const e of doc.errors) {
      const at = e.linePos?.[0];
      const path = at ? `line ${at.line}, column ${at.col}` : '$';
      const message = `invalid YAML: ${e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}`;
      if (seen.has(path + message)) continue;
      seen.add(path + message);
      issues.push({ file, path, message });
    }
    return { ok: false, issues };
  }
  return { ok: true, value: doc.toJS({ maxAliasCount: 100 }) };
}

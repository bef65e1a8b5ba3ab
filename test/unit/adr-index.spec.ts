/**
 * docs/adr/README.md indexes every ADR (issue 29): an ADR added without its row, or a row naming a
 * file that is not there, fails here, so the index cannot drift from the folder.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const DIR = join(__dirname, '../../docs/adr');

describe('the ADR index', () => {
  const files = readdirSync(DIR).filter((f) => /^\d{4}-.+\.md$/.test(f));
  const rows = [...readFileSync(join(DIR, 'README.md'), 'utf8').matchAll(/^\| \[(\d{4})\]\(([^)]+)\) \| (.+?) \| (.+?) \|$/gm)];

  it('has one row per ADR file, with its number, and no row without a file', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(rows.map((r) => r[2]).sort()).toEqual([...files].sort());
    for (const [, number, file] of rows) expect(file.startsWith(`${number}-`)).toBe(true);
  });

  it('gives every row a title and a status', () => {
    for (const [, , , title, status] of rows) {
      expect(title.trim()).not.toBe('');
      expect(status).toMatch(/^(accepted|proposed|superseded|amended|withdrawn)/);
    }
  });
});

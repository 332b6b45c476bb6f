// docs/deploy.md documents exactly the variables the config reads, with their defaults and meanings.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { environmentRows, TABLE_BEGIN, TABLE_END } from './config-table';

const doc = readFileSync(new URL('../../../docs/deploy.md', import.meta.url), 'utf8');

/** The table rows of the generated section, cells trimmed (prettier aligns the columns). */
function documentedRows(): string[][] {
  const section = doc.slice(doc.indexOf(TABLE_BEGIN) + TABLE_BEGIN.length, doc.indexOf(TABLE_END));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| '))
    .slice(2) // header and separator
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim().replaceAll('\\|', '|')),
    );
}

describe('docs/deploy.md environment table', () => {
  it('has the generated section', () => {
    expect(doc.indexOf(TABLE_BEGIN)).toBeGreaterThan(0);
    expect(doc.indexOf(TABLE_END)).toBeGreaterThan(doc.indexOf(TABLE_BEGIN));
  });

  it('lists every variable of the config, with its default and meaning, and nothing else (npm run docs:env)', () => {
    expect(documentedRows()).toEqual(environmentRows());
  });

  it('shows defaults as the config applies them', () => {
    const byName = new Map(environmentRows().map(([name, value]) => [name, value]));
    expect(byName.get('`PORT`')).toBe('`8787`');
    expect(byName.get('`SIGIL_RPC_URL`')).toBe('required');
    expect(byName.get('`SIGIL_DOMAIN_SUFFIXES`')).toBe('`x1,xnt,xen`');
    expect(byName.get('`SIGIL_PORTAL_KEY`')).toBe('unset');
    expect(byName.get('`SIGIL_REQUEST_DEADLINE_MS`')).toBe('`6000`');
  });
});

// docs/x402.md says which routes are sold and how long the x402 rows are kept: it must say what the code does.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { METERED_ROUTES } from '../../trpc/procedures';

const doc = readFileSync(new URL('../../../../docs/x402.md', import.meta.url), 'utf8');
const section = (title: string) => {
  const start = doc.indexOf(`## ${title}`);
  return doc.slice(start, doc.indexOf('\n## ', start + 1));
};

describe('docs/x402.md', () => {
  it('"Which endpoints are metered" names every route of METERED_ROUTES, /v1/reverse included', () => {
    const text = section('Which endpoints are metered').replace(/\s+/g, ' ');
    for (const route of Object.keys(METERED_ROUTES)) {
      const [, path] = route.split(' ');
      expect(text, route).toContain(`GET ${path}`);
    }
    expect(text).not.toMatch(/There is no `\/v1\/reverse`/);
  });

  it('says the settlement rows and the unpaid references are kept a day, with housekeeping, everywhere', () => {
    expect(doc).not.toMatch(/no housekeeping yet|not\s+scheduled yet/);
    expect(doc).toMatch(/kept a day after the settlement started/);
  });
});

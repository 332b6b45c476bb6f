// The handle search over the index (docs/search.md). Pages follow byte-wise name order; the cursor is the last
// name of the page, encoded so that clients treat it as opaque (its format may change; old cursors then answer 400).
import type { Kysely } from 'kysely';
import { ApiError } from '@sigil/contract/errors';
import { MAX_HANDLE_LENGTH } from '@sigil/contract/names';
import { normalizeSearchQuery, type SearchHandlesQuery, type SearchHandlesResponse } from '@sigil/contract/search';
import type { Database } from '../../platform/db/index';
import { searchIndex } from './queries';

export interface SearchService {
  searchHandles(query: SearchHandlesQuery): Promise<SearchHandlesResponse>;
}

const CURSOR_PREFIX = 'n1:';

export function encodeCursor(lastName: string): string {
  return Buffer.from(CURSOR_PREFIX + lastName, 'utf8').toString('base64url');
}

/** The name a cursor continues after; anything this service did not issue answers 400 BAD_REQUEST. */
export function decodeCursor(cursor: string): string {
  const text = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const name = text.startsWith(CURSOR_PREFIX) ? text.slice(CURSOR_PREFIX.length) : '';
  if (name.length < 1 || name.length > MAX_HANDLE_LENGTH || encodeCursor(name) !== cursor) {
    throw new ApiError('BAD_REQUEST', 'invalid input: cursor: not a cursor of this search (pass nextCursor as is)');
  }
  return name;
}

export function createSearchService(deps: { db: Kysely<Database> }): SearchService {
  return {
    async searchHandles(query) {
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      const rows = await searchIndex(deps.db, {
        q: normalizeSearchQuery(query.q),
        mode: query.mode,
        agentOnly: query.agent === 'true',
        take: query.limit + 1,
        after,
      });
      const page = rows.slice(0, query.limit);
      return {
        items: page.map((row) => ({
          name: row.name,
          account: row.account,
          owner: row.owner,
          agent: row.agent === 1,
          registeredSlot: row.registered_slot,
        })),
        nextCursor: rows.length > query.limit ? encodeCursor(page[page.length - 1]!.name) : null,
      };
    },
  };
}

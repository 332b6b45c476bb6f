// The log's cursor against its bounds: a cursor beyond the latest sequence, or behind what retention kept, is
// refused with a code that names the bounds, instead of an empty page a consumer cannot tell from "caught up".
// Every page says the bounds. Both dialects.
import { expect, it } from 'vitest';
import { describeEachDialect } from '@sigil/test/support/db';
import { readIdentityLog } from './service';

const event = (sequence: number) => ({
  sequence,
  id: `iev_bounds_${sequence}`,
  type: 'handle.registered',
  signature: '1'.repeat(64),
  slot: sequence,
  handle_name: 'bounds',
  payload: JSON.stringify({ sequence }),
  test: 0,
  created_at: 1,
});

describeEachDialect('identity log bounds', (ctx) => {
  it('before the stream ever ran: the log is empty, latest 0; a cursor past 0 is ahead', async () => {
    const page = (await readIdentityLog(ctx.db, { limit: 10 })).toJSON();
    expect(page).toEqual({ events: [], next_after: null, has_more: false, oldest_sequence: null, latest_sequence: 0 });
    expect((await readIdentityLog(ctx.db, { after: 0, limit: 10 })).toJSON()).toMatchObject({
      events: [],
      latest_sequence: 0,
    });
    await expect(readIdentityLog(ctx.db, { after: 1, limit: 10 })).rejects.toMatchObject({
      code: 'CURSOR_AHEAD',
      status: 409,
      message: 'cursor 1 is beyond the log: it holds no events yet (latest sequence 0)',
    });
  });

  it('names the bounds on every page; refuses a cursor ahead of the latest or behind the oldest kept', async () => {
    // Sequences 1..3 were pruned by retention; 4..6 are kept; the stream has assigned up to 6.
    await ctx.db
      .insertInto('identity_events')
      .values([event(4), event(5), event(6)])
      .execute();
    await ctx.db
      .insertInto('identity_stream')
      .values({ id: 'main', next_sequence: 7, start_slot: 0, last_signature: null, last_slot: 6, updated_at: 1 })
      .execute();
    expect((await readIdentityLog(ctx.db, { after: 3, limit: 2 })).toJSON()).toEqual({
      events: [{ sequence: 4 }, { sequence: 5 }],
      next_after: 5,
      has_more: true,
      oldest_sequence: 4,
      latest_sequence: 6,
    });
    expect((await readIdentityLog(ctx.db, { after: 6, limit: 2 })).toJSON()).toMatchObject({
      events: [],
      next_after: 6,
    });
    expect((await readIdentityLog(ctx.db, { limit: 1 })).toJSON().events).toEqual([{ sequence: 4 }]);
    await expect(readIdentityLog(ctx.db, { after: 7, limit: 10 })).rejects.toMatchObject({
      code: 'CURSOR_AHEAD',
      status: 409,
      message: 'cursor 7 is beyond the log: it holds sequences 4..6',
    });
    await expect(readIdentityLog(ctx.db, { after: 2, limit: 10 })).rejects.toMatchObject({
      code: 'CURSOR_EXPIRED',
      status: 410,
      message: 'events after cursor 2 were removed by retention: the log holds sequences 4..6',
    });
    // Everything pruned: the bounds still say where the log stands.
    await ctx.db.deleteFrom('identity_events').execute();
    await expect(readIdentityLog(ctx.db, { after: 5, limit: 10 })).rejects.toMatchObject({
      code: 'CURSOR_EXPIRED',
      message: 'events after cursor 5 were removed by retention: the log holds none (latest sequence 6)',
    });
    expect((await readIdentityLog(ctx.db, { after: 6, limit: 10 })).toJSON()).toEqual({
      events: [],
      next_after: 6,
      has_more: false,
      oldest_sequence: null,
      latest_sequence: 6,
    });
  });
});

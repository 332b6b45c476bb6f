// The storage adapter's single-use and durability rules: a destroy and a grant's revocation are acted on only once
// they are on disk (a failing durability barrier fails them; a grant's revocation still ends the sign-in behind it);
// upserts, consumes and an interaction's destroy do not wait for the barrier (a consume is a FULL commit of its
// own); a collected step's destroys happen with its write, and a resume stored whose barrier failed answers the page
// that sends the browser back to the application; and of two consumes of one row exactly one wins.
import { expect, it } from 'vitest';
import { describeEachDialect } from '@sigil/test/support/db';
import { createDatabase } from '../../platform/db/index';
import { adapterFactory, type AdapterHooks } from './adapter';
import { findPayloadAhead } from './queries';
import { collectInto, inRequestScope } from './request-scope';
import { errorPage } from './page';
import { PendingWrites, resumeWritesTogether, StoredNotDurable } from './writes';

class AlreadyConsumed extends Error {}

function adapters(db: Parameters<typeof adapterFactory>[0], durable: () => Promise<void>) {
  const revoked: string[] = [];
  const hooks: AdapterHooks = {
    grantRevoked: async (grantId) => void revoked.push(grantId),
    alreadyConsumed: () => new AlreadyConsumed('grant source already consumed'),
  };
  return { factory: adapterFactory(db, () => 1_000_000, hooks, durable), revoked };
}

describeEachDialect('oidc adapter: durability before acting', (ctx) => {
  it('an upsert and a consume do not wait for the barrier (the consume is a FULL commit of its own)', async () => {
    let barriers = 0;
    const { factory } = adapters(ctx.db, async () => {
      barriers++;
      throw new Error('fsync failed');
    });
    const codes = factory('AuthorizationCode');
    await codes.upsert('code-1', { grantId: 'grant-1' }, 60);
    await codes.consume('code-1');
    expect(barriers).toBe(0);
    expect(await codes.find('code-1')).toEqual({ grantId: 'grant-1', consumed: 1000 });
  });

  it('of two consumes of one code exactly one wins; the loser gets the library error', async () => {
    let barriers = 0;
    const { factory } = adapters(ctx.db, async () => void barriers++);
    const codes = factory('AuthorizationCode');
    await codes.upsert('code-2', { grantId: 'grant-2' }, 60);
    const outcomes = await Promise.allSettled([codes.consume('code-2'), codes.consume('code-2')]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const loser = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(loser.reason).toBeInstanceOf(AlreadyConsumed);
    expect(barriers).toBe(0);
    expect(await codes.find('code-2')).toEqual({ grantId: 'grant-2', consumed: 1000 });
  });

  it('of two consumes of one refresh token one wins, and the loser revokes the whole grant (reuse)', async () => {
    const { factory, revoked } = adapters(ctx.db, async () => {});
    const refresh = factory('RefreshToken');
    const access = factory('AccessToken');
    await refresh.upsert('rt-1', { grantId: 'grant-rt' }, 60);
    await access.upsert('at-rt', { grantId: 'grant-rt' }, 60);
    const outcomes = await Promise.allSettled([refresh.consume('rt-1'), refresh.consume('rt-1')]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(
      AlreadyConsumed,
    );
    expect(revoked).toEqual(['grant-rt']);
    expect(await refresh.find('rt-1')).toBeUndefined();
    expect(await access.find('at-rt')).toBeUndefined();
  });

  it('a destroy and a grant revocation wait for the barrier', async () => {
    const order: string[] = [];
    const { factory, revoked } = adapters(ctx.db, async () => void order.push('barrier'));
    const sessions = factory('Session');
    await sessions.upsert('session-1', { accountId: 'a' }, 60);
    await sessions.destroy('session-1');
    expect(order).toEqual(['barrier']);
    expect(await sessions.find('session-1')).toBeUndefined();

    const tokens = factory('AccessToken');
    await tokens.upsert('at-1', { grantId: 'grant-3' }, 60);
    await tokens.revokeByGrantId('grant-3');
    expect(order).toEqual(['barrier', 'barrier']);
    expect(revoked).toEqual(['grant-3']);
    expect(await tokens.find('at-1')).toBeUndefined();
  });

  it('an interaction is destroyed without the barrier (its loss takes the code stored after it along)', async () => {
    let barriers = 0;
    const { factory } = adapters(ctx.db, async () => {
      barriers++;
      throw new Error('fsync failed');
    });
    const interactions = factory('Interaction');
    await interactions.upsert('interaction-1', { uid: 'uid-1' }, 60);
    await interactions.destroy('interaction-1');
    expect(barriers).toBe(0);
    expect(await interactions.find('interaction-1')).toBeUndefined();
  });

  it('in a step whose writes are collected, destroys wait for the step’s write; a session’s then waits for the barrier', async () => {
    const order: string[] = [];
    const { factory } = adapters(ctx.db, async () => {});
    const sessions = factory('Session');
    // The barrier records whether the step's delete was already stored when it ran.
    const durable = async () =>
      void order.push((await sessions.find('session-old')) === undefined ? 'barrier after delete' : 'barrier before');
    const interactions = factory('Interaction');
    await sessions.upsert('session-old', { accountId: 'a' }, 60);
    await interactions.upsert('interaction-2', { uid: 'uid-2' }, 60);
    order.length = 0;

    // Only an interaction destroyed: no barrier.
    const resume = new PendingWrites();
    await inRequestScope(() => collectInto(resume, () => interactions.destroy('interaction-2')));
    expect(await interactions.find('interaction-2')).toEqual({ uid: 'uid-2' });
    await resume.save({ db: ctx.db, durable });
    expect(order).toEqual([]);
    expect(await interactions.find('interaction-2')).toBeUndefined();

    // A browser session replaced: nothing is deleted until the step's write, which then waits for the barrier.
    const replace = new PendingWrites();
    await inRequestScope(() =>
      collectInto(replace, async () => {
        await sessions.destroy('session-old');
        expect(await sessions.find('session-old')).toBeUndefined();
        await sessions.upsert('session-new', { accountId: 'a' }, 60);
      }),
    );
    expect(await sessions.find('session-old')).toEqual({ accountId: 'a' });
    expect(order).toEqual([]);
    await replace.save({ db: ctx.db, durable });
    expect(order).toEqual(['barrier after delete']);
    expect(await sessions.find('session-old')).toBeUndefined();
    expect(await sessions.find('session-new')).toEqual({ accountId: 'a' });
  });

  it('a collected step whose barrier fails says its write is stored: StoredNotDurable, the rows already written', async () => {
    const { factory } = adapters(ctx.db, async () => {});
    const sessions = factory('Session');
    await sessions.upsert('session-gone', { accountId: 'a' }, 60);
    const step = new PendingWrites();
    await inRequestScope(() => collectInto(step, () => sessions.destroy('session-gone')));
    const failing = async () => {
      throw new Error('fsync failed');
    };
    const error = await step.save({ db: ctx.db, durable: failing }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoredNotDurable);
    expect((error as Error).cause).toEqual(new Error('fsync failed'));
    expect(await sessions.find('session-gone')).toBeUndefined();
  });

  it('a resume stored but not made durable answers the 500 page that sends the browser back to the application', async () => {
    const { factory } = adapters(ctx.db, async () => {});
    const sessions = factory('Session');
    await sessions.upsert('session-replaced', { accountId: 'a' }, 60);
    const logged: string[] = [];
    const middleware = resumeWritesTogether({
      db: ctx.db,
      durable: async () => {
        throw new Error('fsync failed');
      },
      log: { error: (_fields: unknown, message: string) => void logged.push(message) } as never,
    });
    // What the middleware touches of the library's context: a resume's path, the redirect with its cookies.
    const headers = new Map<string, unknown>([
      ['location', 'https://app.example/cb?code=c'],
      ['set-cookie', ['_session=new']],
    ]);
    const answer = {
      method: 'GET',
      path: '/oidc/auth/uid-replaced',
      status: 303,
      body: undefined as unknown,
      remove: (name: string) => void headers.delete(name),
      set: (fields: Record<string, string>) => Object.entries(fields).forEach(([k, v]) => headers.set(k, v)),
    };
    await inRequestScope(() => middleware(answer as never, () => sessions.destroy('session-replaced')));
    expect(answer.status).toBe(500);
    expect(headers.has('location')).toBe(false);
    expect(headers.has('set-cookie')).toBe(false);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(answer.body).toBe(
      errorPage('server_error', 'the sign-in could not be completed; start it again from the application'),
    );
    expect(logged).toEqual(['oidc: a resume was stored but not made durable']);
    expect(await sessions.find('session-replaced')).toBeUndefined();
  });

  it('a failing barrier on a grant revocation fails it, yet the sign-in behind the grant is still ended', async () => {
    const { factory, revoked } = adapters(ctx.db, async () => {
      throw new Error('fsync failed');
    });
    await expect(factory('RefreshToken').revokeByGrantId('grant-4')).rejects.toThrow('fsync failed');
    expect(revoked).toEqual(['grant-4']);
  });
});

// On Postgres the read-aheads and client reads of concurrent requests share a statement (turn-batch.ts): the
// answers must be each caller's own, exactly as separate reads would give.
describeEachDialect('oidc adapter: reads of one turn', (ctx) => {
  it('concurrent read-aheads each get their own row and relations; on Postgres one statement for all', async () => {
    const statements: string[] = [];
    const handle = createDatabase({
      ...(ctx.dialect === 'postgres' ? { url: ctx.url } : { sqliteFile: ctx.database.sqliteFile }),
      onQuery: (event) => void statements.push(event.query.sql),
    });
    const counted = handle.db;
    try {
      const { factory } = adapters(counted, async () => {});
      const tokens = factory('AccessToken');
      const grants = factory('Grant');
      await grants.upsert('turn-grant-1', { accountId: 'w1' }, 60);
      await tokens.upsert('turn-at-1', { grantId: 'turn-grant-1', clientId: 'no-such-key' }, 60);
      await tokens.upsert('turn-at-2', { grantId: 'turn-grant-2' }, 60);
      statements.length = 0;
      const [one, two, missing] = await Promise.all([
        findPayloadAhead(counted, 'AccessToken', 'turn-at-1', 1_000_000),
        findPayloadAhead(counted, 'AccessToken', 'turn-at-2', 1_000_000),
        findPayloadAhead(counted, 'AccessToken', 'turn-at-none', 1_000_000),
      ]);
      expect(statements).toHaveLength(ctx.dialect === 'postgres' ? 1 : 3);
      expect(JSON.parse(one!.row.payload)).toEqual({ grantId: 'turn-grant-1', clientId: 'no-such-key' });
      expect(JSON.parse(one!.grant!.row!.payload)).toEqual({ accountId: 'w1' });
      expect(one!.grant!.login).toBeUndefined();
      expect(one!.client).toEqual({ id: 'no-such-key', row: undefined });
      expect(two!.grant).toEqual({ id: 'turn-grant-2', row: undefined, login: undefined });
      expect(two!.client).toBeUndefined();
      expect(missing).toBeUndefined();
      // Concurrent writes of one turn: one statement on Postgres, and every row written.
      statements.length = 0;
      await Promise.all(['turn-at-3', 'turn-at-4', 'turn-at-5'].map((id) => tokens.upsert(id, { grantId: id }, 60)));
      expect(statements).toHaveLength(ctx.dialect === 'postgres' ? 1 : 3);
      for (const id of ['turn-at-3', 'turn-at-4', 'turn-at-5']) expect(await tokens.find(id)).toEqual({ grantId: id });
      // A single read is one statement on either dialect, as before.
      statements.length = 0;
      expect((await findPayloadAhead(counted, 'AccessToken', 'turn-at-2', 1_000_000))!.grant!.id).toBe('turn-grant-2');
      expect(statements).toHaveLength(1);
    } finally {
      await handle.close();
    }
  });
});

describeEachDialect('oidc adapter: ids no row can have', (ctx) => {
  it('finds nothing for an id holding U+0000, on every lookup (Postgres refuses it as a parameter)', async () => {
    const { factory } = adapters(ctx.db, async () => {});
    for (const id of ['a\u0000b', '\u0000']) {
      expect(await factory('Client').find(id)).toBeUndefined();
      expect(await factory('AuthorizationCode').find(id)).toBeUndefined();
      expect(await factory('Session').find(id)).toBeUndefined();
      expect(await factory('Interaction').find(id)).toBeUndefined();
      expect(await factory('Session').findByUid(id)).toBeUndefined();
      expect(await factory('DeviceCode').findByUserCode(id)).toBeUndefined();
    }
  });
});

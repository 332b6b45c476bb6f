// Test helpers for Connect over real HTTP (tests only): full sign-ins with the scenario's wallets.
import type { KeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll } from 'vitest';
import { signChallenge } from '@sigil/client-sdk/connect';
import { startKeyedApp, type KeyedApp, type KeyedResponse } from './keyed-app';
import { startLocalChain, type LocalChain } from '../../server/src/localchain/index';

/** What a Connect test file works against: the scenario chain, a keyed app (SQLite) on it, and that app's key. */
export interface ConnectWorld {
  chain: LocalChain;
  app: KeyedApp;
  /** The app key's id: the audience of its challenges. */
  keyId: string;
  secret: string;
}

/**
 * Starts the world in the calling file's beforeAll and closes it in its afterAll. Its fields exist from the
 * beforeAll on: read them inside tests and hooks, not at collection time.
 */
export function useConnectWorld(): ConnectWorld {
  const world = {} as ConnectWorld;
  beforeAll(async () => {
    world.chain = await startLocalChain({ scenario: true });
    world.app = await startKeyedApp({ dialect: 'sqlite', chain: world.chain });
    world.keyId = world.app.key.key.id;
    world.secret = world.app.key.secret;
  });
  afterAll(async () => {
    await world.app?.close();
    await world.chain?.close();
  });
  return world;
}

export const show = (res: KeyedResponse) => `${res.status} ${res.text}`;

/** Challenge `{wallet}` (or `body`) with `keySecret`, sign it with `wallet`, verify: the verify response. */
export async function signIn(
  app: KeyedApp,
  opts: { keySecret: string; audience: string; wallet: KeyPairSigner; body?: Record<string, unknown> },
): Promise<KeyedResponse> {
  const challenge = await app.call('POST', '/v1/auth/challenge', {
    key: opts.keySecret,
    body: opts.body ?? { wallet: opts.wallet.address },
  });
  if (challenge.status !== 200) throw new Error(`challenge failed: ${show(challenge)}`);
  return app.call('POST', '/v1/auth/verify', {
    key: opts.keySecret,
    body: await signChallenge(challenge.body, opts.wallet, opts.audience),
  });
}

/** portalSessionAuthSuite's two genuine sessions of `wallet`: one through the portal key, one through app.key. */
export function sessionsOf(wallet: () => Promise<KeyPairSigner>) {
  return {
    portalSession: async (a: KeyedApp) => portalSession(a, await wallet()),
    integratorSession: async (a: KeyedApp) =>
      (await signIn(a, { keySecret: a.key.secret, audience: a.key.key.id, wallet: await wallet() })).body
        .token as string,
  };
}

/** A session token for `wallet` through the portal's key, and its jti (from the token's payload). */
export async function portalSession(app: KeyedApp, wallet: KeyPairSigner): Promise<{ token: string; jti: string }> {
  const res = await signIn(app, { keySecret: app.portal.secret, audience: app.portal.key.id, wallet });
  if (res.status !== 200) throw new Error(`portal sign-in failed: ${show(res)}`);
  return { token: res.body.token, jti: jtiOf(res.body.token) };
}

export function jtiOf(token: string): string {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')).jti;
}

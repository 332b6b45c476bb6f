/**
 * Webhooks managed with the portal session, over real HTTP: a local chain, the keyed app with its webhook workers
 * and a loopback HTTPS receiver, and two owners signed in through the portal key, each with a key of their own.
 *
 *   const w = useOwnerWebhooksWorld();
 *   const hook = await w.registerPay(w.grace);            // challenge → sign → register, through the session
 *   await w.call(w.grace, 'PATCH', `/webhooks/pay/${hook.id}`, { event_types: ['invoice'] });
 */
import type { KeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, expect } from 'vitest';
import { demoWallet } from '../../server/src/localchain/scenario';
import { startLocalChain, type LocalChain } from '../../server/src/localchain/index';
import { portalSession, show } from './connect-world';
import { startHttpsReceiver, type HttpsReceiver } from './https-receiver';
import type { KeyedResponse } from './keyed-app';
import { startWebhookApp, type WebhookApp } from './pay-webhooks';
import { signRaw } from './webhooks-world';

export interface Owner {
  wallet: KeyPairSigner;
  token: string;
  keyId: string;
  keySecret: string;
}

export interface OwnerWebhooksWorld {
  chain: LocalChain;
  env: WebhookApp;
  receiver: HttpsReceiver;
  grace: Owner;
  ivan: Owner;
  /** A receiver URL (another path gives another URL at the same receiver). */
  url(path?: string): string;
  /** `method /v1/keys/{owner's key}{path}` with the owner's session (or `as`: another owner's session). */
  call(owner: Owner, method: string, path: string, body?: unknown, as?: Owner): Promise<KeyedResponse>;
  /** Registers a wallet-scope pay webhook of the owner's own wallet through the session routes. */
  registerPay(owner: Owner, body?: Record<string, unknown>): Promise<{ id: string; secret: string; webhook: any }>;
  /** A URL-change challenge of the owner's pay webhook, signed by `signer` (default the owner's wallet). */
  signedUrlChange(owner: Owner, id: string, url: string, signer?: KeyPairSigner): Promise<Record<string, string>>;
}

async function signedInOwner(env: WebhookApp, name: string): Promise<Owner> {
  const wallet = await demoWallet(name);
  const { token } = await portalSession(env.app, wallet);
  const created = await env.app.call('POST', '/v1/keys', { bearer: token, body: { name: `${name}'s shop` } });
  expect(created.status, show(created)).toBe(201);
  return { wallet, token, keyId: created.body.key.id, keySecret: created.body.secret };
}

export function useOwnerWebhooksWorld(): OwnerWebhooksWorld {
  const world = {} as OwnerWebhooksWorld;
  beforeAll(async () => {
    world.chain = await startLocalChain({ scenario: false });
    world.env = await startWebhookApp({ chain: world.chain });
    world.receiver = await startHttpsReceiver((_req, res) => res.writeHead(204).end());
    world.grace = await signedInOwner(world.env, 'grace');
    world.ivan = await signedInOwner(world.env, 'ivan');
  }, 60_000);
  afterAll(async () => {
    await world.env?.close();
    await world.receiver?.close();
    await world.chain?.close();
  });
  world.url = (path = '/hook') => `https://127.0.0.1:${world.receiver.port}${path}`;
  world.call = (owner, method, path, body, as) =>
    world.env.app.call(method, `/v1/keys/${owner.keyId}${path}`, {
      bearer: (as ?? owner).token,
      ...(body === undefined ? {} : { body }),
    });
  world.registerPay = async (owner, body = {}) => {
    const challenge = await world.call(owner, 'POST', '/webhooks/pay/challenge', {
      scope: owner.wallet.address,
      url: world.url(),
      ...body,
    });
    expect(challenge.status, show(challenge)).toBe(200);
    const signature = await signRaw(owner.wallet, challenge.body.message);
    const created = await world.call(owner, 'POST', '/webhooks/pay', { nonce: challenge.body.nonce, signature });
    expect(created.status, show(created)).toBe(201);
    return { id: created.body.id, secret: created.body.secret, webhook: created.body };
  };
  world.signedUrlChange = async (owner, id, url, signer = owner.wallet) => {
    const challenge = await world.call(owner, 'POST', `/webhooks/pay/${id}/challenge`, { url });
    expect(challenge.status, show(challenge)).toBe(200);
    return { url, nonce: challenge.body.nonce, signature: await signRaw(signer, challenge.body.message) };
  };
  return world;
}

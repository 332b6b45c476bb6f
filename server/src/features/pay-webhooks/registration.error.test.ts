// Every registration/management error code of the spec's webhook table that the service decides, on both dialects.
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '@sigil/test/support/db';
import { createChainReader } from '../../platform/chain/reader';
import { registerWebhook, type WebhookCaller, type WebhookServiceDeps } from './service';
import {
  issueChallengeFromBody,
  payWebhooksService,
  signRaw,
  useRegistrationWorld,
} from '@sigil/test/support/webhooks-world';

const world = useRegistrationWorld('market');
let stranger: KeyPairSigner;
beforeAll(async () => {
  stranger = await generateKeyPairSigner();
});

const code = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (e: { code?: string; status?: number }) => `${e.status} ${e.code}`,
  );

describeEachDialect('webhook registration errors', (ctx) => {
  const hooks = () => payWebhooksService(ctx.db, world.deps);
  let n = 0;
  const caller = (): WebhookCaller => ({ keyId: `key_e${++n}`, account: `acct_e${n}` });
  const url = 'https://shop.example.com/h';

  it('field validation: INVALID_SCOPE, INVALID_WALLET, INVALID_URL, INVALID_EVENT_TYPES, WALLET_MISMATCH (400/403)', async () => {
    const me = caller();
    const issue = (body: unknown) => code(issueChallengeFromBody(ctx.db, world.deps, me, body));
    expect(await issue({ scope: '@alice.x1', url })).toBe('400 INVALID_SCOPE');
    expect(await issue({ scope: '@sub.alice', url })).toBe('400 INVALID_SCOPE');
    expect(await issue({ scope: 'not-a-wallet', url })).toBe('400 INVALID_SCOPE');
    expect(await issue({ scope: '@market', wallet: 'nope', url })).toBe('400 INVALID_WALLET');
    expect(await issue({ scope: '@market', url: 'http://shop.example.com/h' })).toBe('400 INVALID_URL');
    expect(await issue({ scope: '@market', url: 'https://shop.example.com:8443/h' })).toBe('400 INVALID_URL');
    expect(await issue({ scope: '@market', url: 'https://user:pw@shop.example.com/h' })).toBe('400 INVALID_URL');
    expect(await issue({ scope: '@market', url, event_types: ['payment.sent'] })).toBe('400 INVALID_EVENT_TYPES');
    expect(await issue({ scope: '@market', url, event_types: ['Payment.received'] })).toBe('400 INVALID_EVENT_TYPES');
    expect(await issue({ scope: world.merchant.address, wallet: world.till.address, url })).toBe('403 WALLET_MISMATCH');
  });

  it('URL_REJECTED for names resolving to non-public addresses and for private literals', async () => {
    const me = caller();
    const privateDns: WebhookServiceDeps = {
      ...world.deps,
      resolver: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ],
    };
    expect(await code(issueChallengeFromBody(ctx.db, privateDns, me, { scope: '@market', url }))).toBe(
      '400 URL_REJECTED',
    );
    expect(
      await code(
        issueChallengeFromBody(ctx.db, world.deps, me, { scope: '@market', url: 'https://169.254.169.254/latest' }),
      ),
    ).toBe('400 URL_REJECTED');
    expect(
      await code(issueChallengeFromBody(ctx.db, world.deps, me, { scope: '@market', url: 'https://localhost/h' })),
    ).toBe('400 URL_REJECTED');
    const noDns: WebhookServiceDeps = { ...world.deps, resolver: async () => [] };
    expect(await code(issueChallengeFromBody(ctx.db, noDns, me, { scope: '@market', url }))).toBe('400 URL_REJECTED');
  });

  it('CHALLENGE_INVALID: unknown, used, expired, or issued to another key', async () => {
    const me = caller();
    const sig = (m: string) => signRaw(world.merchant, m);
    expect(await code(registerWebhook(ctx.db, world.deps, me, { nonce: 'unknown', signature: await sig('x') }))).toBe(
      '400 CHALLENGE_INVALID',
    );

    const used = await issueChallengeFromBody(ctx.db, world.deps, me, { scope: world.merchant.address, url });
    await registerWebhook(ctx.db, world.deps, me, { nonce: used.nonce, signature: await sig(used.message) });
    expect(
      await code(registerWebhook(ctx.db, world.deps, me, { nonce: used.nonce, signature: await sig(used.message) })),
    ).toBe('400 CHALLENGE_INVALID');

    const expiring = await issueChallengeFromBody(ctx.db, world.deps, me, { scope: world.merchant.address, url });
    const later: WebhookServiceDeps = { ...world.deps, now: () => expiring.expires_at * 1000 };
    expect(
      await code(registerWebhook(ctx.db, later, me, { nonce: expiring.nonce, signature: await sig(expiring.message) })),
    ).toBe('400 CHALLENGE_INVALID');

    const other = await issueChallengeFromBody(ctx.db, world.deps, me, { scope: world.merchant.address, url });
    const otherKey = { keyId: 'key_other', account: me.account };
    expect(
      await code(
        registerWebhook(ctx.db, world.deps, otherKey, { nonce: other.nonce, signature: await sig(other.message) }),
      ),
    ).toBe('400 CHALLENGE_INVALID');
    // The refused attempts did not consume it: the right key still registers with it.
    expect(
      await code(registerWebhook(ctx.db, world.deps, me, { nonce: other.nonce, signature: await sig(other.message) })),
    ).toBe('resolved');
  });

  it('SIGNATURE_INVALID: wrong signer, wrong message, undecodable; the nonce survives a bad signature', async () => {
    const me = caller();
    const c = await issueChallengeFromBody(ctx.db, world.deps, me, { scope: world.merchant.address, url });
    const reg = (signature: string) => code(registerWebhook(ctx.db, world.deps, me, { nonce: c.nonce, signature }));
    expect(await reg(await signRaw(world.till, c.message))).toBe('401 SIGNATURE_INVALID');
    expect(await reg(await signRaw(world.merchant, c.message + ' '))).toBe('401 SIGNATURE_INVALID');
    expect(await reg('0OIl')).toBe('401 SIGNATURE_INVALID');
    expect(await reg('')).toBe('401 SIGNATURE_INVALID');
    expect(await reg(await signRaw(world.merchant, c.message))).toBe('resolved');
  });

  it('@name: NOT_FOUND, NOT_CONTROLLER, SIGNATURE_INVALID without a controller signature', async () => {
    const me = caller();
    const ghost = await issueChallengeFromBody(ctx.db, world.deps, me, { scope: '@nobodyhere', url });
    expect(
      await code(
        registerWebhook(ctx.db, world.deps, me, {
          nonce: ghost.nonce,
          signature: await signRaw(world.merchant, ghost.message),
        }),
      ),
    ).toBe('404 NOT_FOUND');

    const claimed = await issueChallengeFromBody(ctx.db, world.deps, me, {
      scope: '@market',
      wallet: stranger.address,
      url,
    });
    expect(
      await code(
        registerWebhook(ctx.db, world.deps, me, {
          nonce: claimed.nonce,
          signature: await signRaw(stranger, claimed.message),
        }),
      ),
    ).toBe('403 NOT_CONTROLLER');

    const anon = await issueChallengeFromBody(ctx.db, world.deps, me, { scope: '@market', url });
    expect(
      await code(
        registerWebhook(ctx.db, world.deps, me, {
          nonce: anon.nonce,
          signature: await signRaw(stranger, anon.message),
        }),
      ),
    ).toBe('401 SIGNATURE_INVALID');
  });

  it('CONTROL_UNPROVEN when the NFT is outside an associated token account; RPC_ERROR when the chain is down', async () => {
    const me = caller();
    const handle = (await world.reader.getHandle('market', 'finalized')).value!;
    const unproven: WebhookServiceDeps = {
      ...world.deps,
      chain: {
        ...world.reader,
        getHandle: async () => ({ value: { ...handle, tokenized: true }, slot: 1n }),
        getHandleAuthority: async () => ({ authority: null, source: 'nft-holder', reason: 'nft-not-in-ata' }),
        getRecords: async () => [],
      },
    };
    const a = await issueChallengeFromBody(ctx.db, world.deps, me, {
      scope: '@market',
      wallet: world.merchant.address,
      url,
    });
    expect(
      await code(
        registerWebhook(ctx.db, unproven, me, { nonce: a.nonce, signature: await signRaw(world.merchant, a.message) }),
      ),
    ).toBe('403 CONTROL_UNPROVEN');
    const b = await issueChallengeFromBody(ctx.db, world.deps, me, { scope: '@market', url });
    expect(
      await code(
        registerWebhook(ctx.db, unproven, me, { nonce: b.nonce, signature: await signRaw(world.merchant, b.message) }),
      ),
    ).toBe('403 CONTROL_UNPROVEN');

    const down: WebhookServiceDeps = {
      ...world.deps,
      chain: createChainReader({ rpcUrl: 'http://127.0.0.1:1', programId: world.chain.programId, timeoutMs: 1000 }),
    };
    const c = await issueChallengeFromBody(ctx.db, world.deps, me, { scope: '@market', url });
    expect(
      await code(
        registerWebhook(ctx.db, down, me, { nonce: c.nonce, signature: await signRaw(world.merchant, c.message) }),
      ),
    ).toBe('502 RPC_ERROR');
    // Nothing consumed: with the chain back, the same nonce registers.
    expect(
      await code(
        registerWebhook(ctx.db, world.deps, me, {
          nonce: c.nonce,
          signature: await signRaw(world.merchant, c.message),
        }),
      ),
    ).toBe('resolved');
  });

  it('LIMIT_REACHED at 25 webhooks per account (challenge and registration), also under concurrency', async () => {
    const me = caller();
    const challenges = [];
    for (let i = 0; i < 27; i++)
      challenges.push(await issueChallengeFromBody(ctx.db, world.deps, me, { scope: world.merchant.address, url }));
    const results = await Promise.all(
      challenges.map(async (c) =>
        code(
          registerWebhook(ctx.db, world.deps, me, {
            nonce: c.nonce,
            signature: await signRaw(world.merchant, c.message),
          }),
        ),
      ),
    );
    expect(results.filter((r) => r === 'resolved')).toHaveLength(25);
    expect(results.filter((r) => r === '409 LIMIT_REACHED')).toHaveLength(2);
    expect(await code(issueChallengeFromBody(ctx.db, world.deps, me, { scope: world.merchant.address, url }))).toBe(
      '409 LIMIT_REACHED',
    );
  });

  it("WEBHOOK_NOT_FOUND for another account's webhook on every management call; DELIVERY_NOT_FOUND; bad limit", async () => {
    const owner = caller();
    const intruder = caller();
    const c = await issueChallengeFromBody(ctx.db, world.deps, owner, { scope: world.merchant.address, url });
    const hook = await registerWebhook(ctx.db, world.deps, owner, {
      nonce: c.nonce,
      signature: await signRaw(world.merchant, c.message),
    });
    const nf = '404 WEBHOOK_NOT_FOUND';
    expect(await code(hooks().get(intruder, hook.id))).toBe(nf);
    expect(await code(hooks().deliveries(intruder, hook.id))).toBe(nf);
    expect(await code(hooks().rotateSecret(intruder, hook.id))).toBe(nf);
    expect(await code(hooks().resume(intruder, hook.id))).toBe(nf);
    expect(await code(hooks().sendTest(intruder, hook.id))).toBe(nf);
    expect(await code(hooks().redeliver(intruder, hook.id, 'whdel_x'))).toBe(nf);
    expect(await code(hooks().remove(intruder, hook.id))).toBe(nf);
    expect(await code(hooks().get(owner, 'whsub_nope'))).toBe(nf);
    expect(await code(hooks().redeliver(owner, hook.id, 'whdel_nope'))).toBe('404 DELIVERY_NOT_FOUND');
    for (const limit of [0, 201, 'x', 1.5])
      expect(await code(hooks().deliveries(owner, hook.id, { limit }))).toBe('400 BAD_REQUEST');
    expect(await code(hooks().get(owner, hook.id))).toBe('resolved'); // untouched by the intruder
  });
});

// POST /privy/wallet over the local chain's demo scenario: a Privy identity token (signed by a local ES256 key that
// stands in for Privy's) → each Solana wallet it lists, with its trusted primary handle and live attestations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKeyedApp, type KeyedApp } from '@sigil/test/support/keyed-app';
import { privyIssuer, solanaWallet, PRIVY_TEST_USER, type PrivyIssuer } from '@sigil/test/support/privy-tokens';

let app: KeyedApp;
let privy: PrivyIssuer;
beforeAll(async () => {
  privy = await privyIssuer();
  app = await startKeyedApp({ dialect: 'sqlite', env: privy.env });
}, 60_000);
afterAll(() => app?.close());

const wallet = (name: string) => app.chain.scenario!.wallets[name]!.address;

describe('POST /privy/wallet', () => {
  it("an embedded wallet with a primary: its handle and the handle's live attestations", async () => {
    const identityToken = await privy.token({
      linked_accounts: [{ type: 'email', address: 'alice@example.com' }, solanaWallet(wallet('alice'))],
    });
    const res = await app.call('POST', '/privy/wallet', { body: { identityToken } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      user: PRIVY_TEST_USER,
      wallets: [{ address: wallet('alice'), embedded: true, handle: 'alice', attestations: ['github', 'x'] }],
      slot: expect.any(Number),
    });
  });

  it('every Solana wallet listed, in order, embedded or not; Ethereum wallets and duplicates skipped', async () => {
    const identityToken = await privy.token({
      linked_accounts: [
        { type: 'wallet', address: '0x52908400098527886E0F7030069857D2E4169EE7', chain_type: 'ethereum' },
        solanaWallet(wallet('aliceSol'), false),
        solanaWallet(wallet('alice')),
        solanaWallet(wallet('alice')),
      ],
    });
    const res = await app.call('POST', '/privy/wallet', { body: { identityToken } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.wallets).toEqual([
      { address: wallet('aliceSol'), embedded: false, handle: null, attestations: [] },
      { address: wallet('alice'), embedded: true, handle: 'alice', attestations: ['github', 'x'] },
    ]);
  });
});

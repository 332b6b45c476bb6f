// prepare_register on the real local chain: a scenario wallet signs and sends what the tool prepared, and the
// handle then resolves through the chain and through the service's GET /resolve.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { startKeyedApp, type KeyedApp } from '@sigil/test/support/keyed-app';
import { runTool, scenarioWallet, signAndSend, toolDeps } from '@sigil/test/support/mcp-prepare';
import { fundedWallet, signedTransaction } from '@sigil/test/support/localchain-wallets';
import { getReleaseInstruction } from '../../platform/chain/registry';
import type { ToolDeps } from '../tool';
import { prepareRegisterTool as tool } from './prepare-register';

let app: KeyedApp;
let deps: ToolDeps;

beforeAll(async () => {
  app = await startKeyedApp({ dialect: 'sqlite' });
  deps = toolDeps(app.chain, app.base);
});
afterAll(async () => {
  await deps.outbound.close();
  await app.close();
});

describe('prepare_register', () => {
  it('declares its annotations: read-only, not idempotent (a fresh blockhash each call), open world', () => {
    expect(tool.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });
  });

  it('prepares a transaction that a scenario wallet signs and sends; then the handle resolves', async () => {
    const bob = await scenarioWallet(app.chain, 'bob');
    const outcome = await runTool(tool, { handle: '@Mcp_New', owner: bob.address }, deps);
    if (!outcome.ok) throw new Error(JSON.stringify(outcome));
    const value = outcome.value;
    expect(value).toMatchObject({ handle: 'mcp_new', handleType: 0, owner: bob.address, payer: bob.address });
    expect(value.instruction.programAddress).toBe(app.chain.programId);
    expect(value.instruction.accounts.map((a) => [a.name, a.role])).toEqual([
      ['payer', 'writable-signer'],
      ['owner', 'readonly-signer'],
      ['handle', 'writable'],
      ['systemProgram', 'readonly'],
    ]);
    expect(value.transaction.signers).toEqual([bob.address]);

    await signAndSend(app.chain, value.transaction.base64, [bob]);
    const { value: handle } = await deps.chain.getHandle('mcp_new');
    expect(handle).toMatchObject({ name: 'mcp_new', owner: bob.address, handleType: 0 });
    const res = await app.call('GET', '/resolve/@mcp_new');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ name: 'mcp_new', owner: bob.address, verification: 'owner' });
  });

  it('a separate payer pays: both sign; an Agent handle when asked', async () => {
    const owner = await generateKeyPairSigner();
    const payer = await fundedWallet(app.chain);
    const outcome = await runTool(
      tool,
      { handle: 'mcp_agent', owner: owner.address, payer: payer.address, agent: true },
      deps,
    );
    if (!outcome.ok) throw new Error(JSON.stringify(outcome));
    expect(outcome.value.transaction.feePayer).toBe(payer.address);
    expect(outcome.value.transaction.signers).toEqual([payer.address, owner.address]);
    await signAndSend(app.chain, outcome.value.transaction.base64, [payer, owner]);
    const { value: handle } = await deps.chain.getHandle('mcp_agent');
    expect(handle).toMatchObject({ owner: owner.address, handleType: 3 });
  });

  it('a released handle can be prepared again: a re-registration (new epoch)', async () => {
    const carol = await scenarioWallet(app.chain, 'carol');
    const first = await runTool(tool, { handle: 'mcp_cycle', owner: carol.address }, deps);
    if (!first.ok) throw new Error(JSON.stringify(first));
    await signAndSend(app.chain, first.value.transaction.base64, [carol]);
    const handle = first.value.handleAccount as Address;
    const release = getReleaseInstruction({ programId: app.chain.programId, owner: carol.address, handle });
    await app.chain.sendAndConfirm(await signedTransaction(app.chain, carol, [release]));

    const again = await runTool(tool, { handle: 'mcp_cycle', owner: carol.address }, deps);
    if (!again.ok) throw new Error(JSON.stringify(again));
    expect(again.value.reRegistration).toBe(true);
    await signAndSend(app.chain, again.value.transaction.base64, [carol]);
    const { value } = await deps.chain.getHandle('mcp_cycle');
    expect(value).toMatchObject({ owner: carol.address, registrationEpoch: 2n });
  });

  it('refuses a bad handle (INVALID_HANDLE), a taken one (HANDLE_TAKEN), a bad owner or payer (INVALID_WALLET)', async () => {
    const bob = await scenarioWallet(app.chain, 'bob');
    for (const handle of ['bad name', 'a'.repeat(33), 'alice.x1', '', 'ünï']) {
      expect(await runTool(tool, { handle, owner: bob.address }, deps), handle).toMatchObject({
        ok: false,
        code: 'INVALID_HANDLE',
      });
    }
    expect(await runTool(tool, { handle: '@alice', owner: bob.address }, deps)).toMatchObject({
      ok: false,
      code: 'HANDLE_TAKEN',
      message: '@alice is already registered',
    });
    expect(await runTool(tool, { handle: 'free_one', owner: 'not-a-wallet' }, deps)).toMatchObject({
      ok: false,
      code: 'INVALID_WALLET',
    });
    expect(await runTool(tool, { handle: 'free_one', owner: bob.address, payer: '0OIl' }, deps)).toMatchObject({
      ok: false,
      code: 'INVALID_WALLET',
    });
  });

  it('simulates what it prepared: a payer who cannot cover the rent gets the named program error, no transaction', async () => {
    const owner = await generateKeyPairSigner();
    const poor = await fundedWallet(app.chain, 1_000_000n); // the fee, not the handle's rent (~1.6M lamports)
    const outcome = await runTool(tool, { handle: 'mcp_poor', owner: owner.address, payer: poor.address }, deps);
    const rent = await app.chain.rpc.getMinimumBalanceForRentExemption(8n + 91n + 4n + 8n).send(); // a Handle of 8 bytes
    expect(outcome).toEqual({
      ok: false,
      code: 'PROGRAM_ERROR',
      message:
        'InsufficientFunds (0x1976, instruction 0): a rule of the registry layout (docs/registry-program.md § Errors) ' +
        `(${poor.address} cannot pay ${rent} lamports)`,
    });
  });

  it('RPC_ERROR when the chain does not answer', async () => {
    const down = toolDeps({ url: 'http://127.0.0.1:9', programId: app.chain.programId });
    const bob = await scenarioWallet(app.chain, 'bob');
    expect(await runTool(tool, { handle: 'free_two', owner: bob.address }, down)).toMatchObject({
      ok: false,
      code: 'RPC_ERROR',
    });
    await down.outbound.close();
  });
});

// prepare_register on the real local chain: a scenario wallet signs and sends what the tool prepared, and the
// handle then resolves through the chain and through the service's GET /resolve.
import { describe, expect, it } from 'vitest';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { runTool, scenarioWallet, signAndSend, toolDeps, useToolApp } from '@sigil/test/support/mcp-prepare';
import { fundedWallet, signedTransaction } from '@sigil/test/support/localchain-wallets';
import { getReleaseInstruction } from '../../platform/chain/registry';
import { prepareRegisterTool as tool } from './prepare-register';

const t = useToolApp();

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
    const bob = await scenarioWallet(t.app.chain, 'bob');
    const outcome = await runTool(tool, { handle: '@Mcp_New', owner: bob.address }, t.deps);
    if (!outcome.ok) throw new Error(JSON.stringify(outcome));
    const value = outcome.value;
    expect(value).toMatchObject({ handle: 'mcp_new', handleType: 0, owner: bob.address, payer: bob.address });
    expect(value.instruction.programAddress).toBe(t.app.chain.programId);
    expect(value.instruction.accounts.map((a) => [a.name, a.role])).toEqual([
      ['payer', 'writable-signer'],
      ['owner', 'readonly-signer'],
      ['handle', 'writable'],
      ['systemProgram', 'readonly'],
    ]);
    expect(value.transaction.signers).toEqual([bob.address]);

    await signAndSend(t.app.chain, value.transaction.base64, [bob]);
    const { value: handle } = await t.deps.chain.getHandle('mcp_new');
    expect(handle).toMatchObject({ name: 'mcp_new', owner: bob.address, handleType: 0 });
    const res = await t.app.call('GET', '/resolve/@mcp_new');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ name: 'mcp_new', owner: bob.address, verification: 'owner' });
  });

  it('a separate payer pays: both sign; an Agent handle when asked', async () => {
    const owner = await generateKeyPairSigner();
    const payer = await fundedWallet(t.app.chain);
    const outcome = await runTool(
      tool,
      { handle: 'mcp_agent', owner: owner.address, payer: payer.address, agent: true },
      t.deps,
    );
    if (!outcome.ok) throw new Error(JSON.stringify(outcome));
    expect(outcome.value.transaction.feePayer).toBe(payer.address);
    expect(outcome.value.transaction.signers).toEqual([payer.address, owner.address]);
    await signAndSend(t.app.chain, outcome.value.transaction.base64, [payer, owner]);
    const { value: handle } = await t.deps.chain.getHandle('mcp_agent');
    expect(handle).toMatchObject({ owner: owner.address, handleType: 3 });
  });

  it('a released handle can be prepared again: a re-registration (new epoch)', async () => {
    const carol = await scenarioWallet(t.app.chain, 'carol');
    const first = await runTool(tool, { handle: 'mcp_cycle', owner: carol.address }, t.deps);
    if (!first.ok) throw new Error(JSON.stringify(first));
    await signAndSend(t.app.chain, first.value.transaction.base64, [carol]);
    const handle = first.value.handleAccount as Address;
    const release = getReleaseInstruction({ programId: t.app.chain.programId, owner: carol.address, handle });
    await t.app.chain.sendAndConfirm(await signedTransaction(t.app.chain, carol, [release]));

    const again = await runTool(tool, { handle: 'mcp_cycle', owner: carol.address }, t.deps);
    if (!again.ok) throw new Error(JSON.stringify(again));
    expect(again.value.reRegistration).toBe(true);
    await signAndSend(t.app.chain, again.value.transaction.base64, [carol]);
    const { value } = await t.deps.chain.getHandle('mcp_cycle');
    expect(value).toMatchObject({ owner: carol.address, registrationEpoch: 2n });
  });

  it('refuses a bad handle (INVALID_HANDLE), a taken one (HANDLE_TAKEN), a bad owner or payer (INVALID_WALLET)', async () => {
    const bob = await scenarioWallet(t.app.chain, 'bob');
    for (const handle of ['bad name', 'a'.repeat(33), 'alice.x1', '', 'ünï']) {
      expect(await runTool(tool, { handle, owner: bob.address }, t.deps), handle).toMatchObject({
        ok: false,
        code: 'INVALID_HANDLE',
      });
    }
    expect(await runTool(tool, { handle: '@alice', owner: bob.address }, t.deps)).toMatchObject({
      ok: false,
      code: 'HANDLE_TAKEN',
      message: '@alice is already registered',
    });
    expect(await runTool(tool, { handle: 'free_one', owner: 'not-a-wallet' }, t.deps)).toMatchObject({
      ok: false,
      code: 'INVALID_WALLET',
    });
    expect(await runTool(tool, { handle: 'free_one', owner: bob.address, payer: '0OIl' }, t.deps)).toMatchObject({
      ok: false,
      code: 'INVALID_WALLET',
    });
  });

  it('simulates what it prepared: a payer who cannot cover the rent gets the named program error, no transaction', async () => {
    const owner = await generateKeyPairSigner();
    const poor = await fundedWallet(t.app.chain, 1_000_000n); // the fee, not the handle's rent (~1.6M lamports)
    const outcome = await runTool(tool, { handle: 'mcp_poor', owner: owner.address, payer: poor.address }, t.deps);
    const rent = await t.app.chain.rpc.getMinimumBalanceForRentExemption(8n + 91n + 4n + 8n).send(); // a Handle of 8 bytes
    expect(outcome).toEqual({
      ok: false,
      code: 'PROGRAM_ERROR',
      message:
        'InsufficientFunds (0x1976, instruction 0): a rule of the registry layout (docs/registry-program.md § Errors) ' +
        `(${poor.address} cannot pay ${rent} lamports)`,
    });
  });

  it('RPC_ERROR when the chain does not answer', async () => {
    const down = toolDeps({ url: 'http://127.0.0.1:9', programId: t.app.chain.programId });
    const bob = await scenarioWallet(t.app.chain, 'bob');
    expect(await runTool(tool, { handle: 'free_two', owner: bob.address }, down)).toMatchObject({
      ok: false,
      code: 'RPC_ERROR',
    });
    await down.outbound.close();
  });
});

// prepare_set_record on the real local chain: the handle's authority signs and sends what the tool prepared, and
// the record then reads back from the chain (the service's resolve shows address records only).
import { describe, expect, it } from 'vitest';
import { runTool, scenarioWallet, signAndSend, useToolApp } from '@sigil/test/support/mcp-prepare';
import { prepareSetRecordTool as tool } from './prepare-set-record';

const t = useToolApp();

async function textRecord(handleName: string, key: string) {
  const { value: handle } = await t.deps.chain.getHandle(handleName);
  const records = await t.deps.chain.getRecords(handle!.address);
  return records.find((r) => r.kind === 'text' && r.key === key);
}

describe('prepare_set_record', () => {
  it('declares its annotations', () => {
    expect(tool.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });
  });

  it('creates a text record: alice signs and sends, the record reads back from the chain', async () => {
    const alice = await scenarioWallet(t.app.chain, 'alice');
    const outcome = await runTool(
      tool,
      { handle: '@alice', key: 'agent.mcp', value: 'https://alice.example/mcp', authority: alice.address },
      t.deps,
    );
    if (!outcome.ok) throw new Error(JSON.stringify(outcome));
    expect(outcome.value).toMatchObject({ handle: 'alice', key: 'agent.mcp', action: 'create' });
    expect(outcome.value.instruction.accounts.map((a) => [a.name, a.role])).toEqual([
      ['authority', 'readonly-signer'],
      ['handle', 'readonly'],
      ['record', 'writable'],
      ['systemProgram', 'readonly'],
    ]);
    await signAndSend(t.app.chain, outcome.value.transaction.base64, [alice]);

    expect(await textRecord('alice', 'agent.mcp')).toMatchObject({
      value: 'https://alice.example/mcp',
      authority: alice.address,
      address: outcome.value.recordAccount,
    });
  });

  it('updates an existing record (action update)', async () => {
    const alice = await scenarioWallet(t.app.chain, 'alice');
    const outcome = await runTool(
      tool,
      { handle: 'alice', key: 'url', value: 'https://alice.example/v2', authority: alice.address },
      t.deps,
    );
    if (!outcome.ok) throw new Error(JSON.stringify(outcome));
    expect(outcome.value.action).toBe('update');
    await signAndSend(t.app.chain, outcome.value.transaction.base64, [alice]);
    expect((await textRecord('alice', 'url'))?.value).toBe('https://alice.example/v2');
  });

  it('the NFT holder of a tokenized handle is its authority; the recorded owner is not (NOT_CONTROLLER)', async () => {
    const dave = await scenarioWallet(t.app.chain, 'dave');
    const carol = await scenarioWallet(t.app.chain, 'carol');
    const byCarol = await runTool(tool, { handle: 'vault', key: 'url', value: 'x', authority: carol.address }, t.deps);
    expect(byCarol).toMatchObject({ ok: false, code: 'NOT_CONTROLLER' });
    const byDave = await runTool(
      tool,
      { handle: 'vault', key: 'url', value: 'https://vault.example', authority: dave.address },
      t.deps,
    );
    if (!byDave.ok) throw new Error(JSON.stringify(byDave));
    await signAndSend(t.app.chain, byDave.value.transaction.base64, [dave]);
    expect((await textRecord('vault', 'url'))?.value).toBe('https://vault.example');
  });

  it('refuses bad input and unknown handles with their codes', async () => {
    const alice = await scenarioWallet(t.app.chain, 'alice');
    const ok = { handle: 'alice', key: 'url', value: 'v', authority: alice.address as string };
    const cases: [Partial<typeof ok>, string][] = [
      [{ handle: 'not a handle' }, 'INVALID_HANDLE'],
      [{ key: 'Upper' }, 'BAD_REQUEST'],
      [{ key: '' }, 'BAD_REQUEST'],
      [{ key: 'k'.repeat(33) }, 'BAD_REQUEST'],
      [{ value: '' }, 'BAD_REQUEST'],
      [{ value: 'é'.repeat(257) }, 'BAD_REQUEST'],
      [{ authority: 'nope' }, 'INVALID_WALLET'],
      [{ handle: 'nobody_has_this' }, 'HANDLE_NOT_REGISTERED'],
      [{ handle: 'bob' }, 'NOT_CONTROLLER'],
    ];
    for (const [change, code] of cases) {
      expect(await runTool(tool, { ...ok, ...change }, t.deps), JSON.stringify(change)).toMatchObject({
        ok: false,
        code,
      });
    }
    // 512 bytes exactly is allowed.
    expect(await runTool(tool, { ...ok, value: 'v'.repeat(512) }, t.deps)).toMatchObject({ ok: true });
  });
});

// Test fixtures for the MCP prepare_* and x402 tools: the ToolDeps a tool runs with, and a scenario wallet that signs
// and sends what a tool prepared (the tools hold no keys; the test plays the agent's wallet). Used by tests only.
import { base58 } from '@scure/base';
import {
  createKeyPairSignerFromBytes,
  getBase64Encoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  signTransaction,
  type KeyPairSigner,
  type Signature,
} from '@solana/kit';
import { afterAll, beforeAll } from 'vitest';
import { z } from 'zod';
import { useScenarioApp, type ScenarioApp } from './scenario-app';
import type { LocalChain } from '../../server/src/localchain/index';
import type { ToolDefinition, ToolDeps } from '../../server/src/mcp/tool';
import { createChainReader } from '../../server/src/platform/chain/reader';
import { createOutboundClient } from '../../server/src/platform/outbound/client';

/** useScenarioApp, and the ToolDeps over its chain and service (built after it starts, closed before it stops). */
export function useToolApp(): ScenarioApp & { readonly deps: ToolDeps } {
  const ctx = useScenarioApp() as ScenarioApp & { deps: ToolDeps };
  beforeAll(() => {
    ctx.deps = toolDeps(ctx.app.chain, ctx.app.base);
  });
  afterAll(async () => {
    await ctx.deps?.outbound.close();
  });
  return ctx;
}

/** What the MCP process builds at start, over this chain and service. */
export function toolDeps(chain: Pick<LocalChain, 'url' | 'programId'>, apiUrl = 'http://127.0.0.1:9'): ToolDeps {
  return {
    chain: createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 2_000 }),
    apiUrl,
    queryApiUrl: undefined,
    outbound: createOutboundClient(),
    fetch,
  };
}

/** A scenario wallet (fixed demo keys, see server/src/localchain/scenario.ts). */
export function scenarioWallet(chain: Pick<LocalChain, 'scenario'>, name: string): Promise<KeyPairSigner> {
  const wallet = chain.scenario?.wallets[name];
  if (!wallet) throw new Error(`no scenario wallet ${name}`);
  return createKeyPairSignerFromBytes(base58.decode(wallet.secretKey));
}

/** Signs a prepared base64 transaction with `signers` (all it needs) and sends it; resolves once confirmed. */
export async function signAndSend(
  chain: Pick<LocalChain, 'sendAndConfirm'>,
  base64: string,
  signers: KeyPairSigner[],
  commitment: 'confirmed' | 'finalized' = 'confirmed',
): Promise<Signature> {
  const unsigned = getTransactionDecoder().decode(getBase64Encoder().encode(base64));
  const signed = await signTransaction(
    signers.map((s) => s.keyPair),
    unsigned,
  );
  await chain.sendAndConfirm(signed, { commitment });
  return getSignatureFromTransaction(signed);
}

/** Runs a tool and checks what it returned against its own output schema (the MCP server validates the same). */
export async function runTool<In extends z.ZodRawShape, Out extends z.ZodRawShape>(
  tool: ToolDefinition<In, Out>,
  args: z.infer<z.ZodObject<In>>,
  deps: ToolDeps,
) {
  const outcome = await tool.run(args, deps);
  if (outcome.ok) z.object(tool.outputSchema).parse(outcome.value);
  return outcome;
}

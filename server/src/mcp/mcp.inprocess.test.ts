// The MCP protocol server in process (the SDK's InMemoryTransport and its Client), over fake chain readers and fake
// fetches: the cases a live scenario cannot produce (a released handle, an unreachable API, a tool that throws or
// answers a shape its schema refuses), and every error result validated by the client against the output schema.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { fakeChain } from '@sigil/test/support/http-app';
import type { Address } from '@solana/kit';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ZERO_ADDRESS } from '../platform/chain/trust-rules';
import { ChainError, type ChainReader, type HandleAccount } from '../platform/chain/types';
import { createLogger } from '../platform/log';
import { createOutboundClient } from '../platform/outbound/client';
import { compileTools, createMcpServer } from './server';
import type { ToolDefinition, ToolDeps } from './tool';
import { mcpTools } from './tools/index';

/** The served tools, on the demo scenario's network. */
const TOOLS = mcpTools({ network: 'testnet' });

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

async function connect(deps: Partial<ToolDeps>, tools: readonly ToolDefinition[] = TOOLS): Promise<Client> {
  const full: ToolDeps = {
    chain: fakeChain(),
    apiUrl: 'http://127.0.0.1:1',
    queryApiUrl: undefined,
    outbound: createOutboundClient(),
    fetch: globalThis.fetch,
    ...deps,
  };
  const server = createMcpServer(compileTools(tools), full, createLogger({ logLevel: 'silent' }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'sigil-test', version: '1.0.0' });
  await client.connect(clientSide);
  await client.listTools(); // the client validates structuredContent against the schemas it listed
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  return (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    structuredContent?: any;
    content: { type: string; text: string }[];
  };
}

const handle = (owner: string): HandleAccount => ({
  address: 'HandLe1111111111111111111111111111111111111' as Address,
  name: 'gone',
  owner: owner as Address,
  handleType: 0,
  tokenized: false,
  mint: null,
  registrationEpoch: 1n,
  registeredAt: 1,
  registeredSlot: 1n,
});

describe('check_availability', () => {
  it('a released handle (owner zeroed) is available again, reason released', async () => {
    const client = await connect({
      chain: fakeChain({ getHandle: async () => ({ value: handle(ZERO_ADDRESS), slot: 99n }) }),
    });
    const got = await call(client, 'check_availability', { name: 'gone' });
    expect(got.structuredContent).toEqual({ handle: 'gone', available: true, reason: 'released', slot: 99 });
  });

  it('malformed account data: RPC_ERROR naming it', async () => {
    const client = await connect({
      chain: fakeChain({
        getHandle: async () => {
          throw new ChainError('malformed', 'short');
        },
      }),
    });
    const got = await call(client, 'check_availability', { name: 'alice' });
    expect(got.isError).toBe(true);
    expect(got.structuredContent).toEqual({
      code: 'RPC_ERROR',
      message: 'the chain returned an account that does not decode',
    });
  });
});

describe('get_records', () => {
  it('a released handle is HANDLE_NOT_REGISTERED', async () => {
    const chain: Partial<ChainReader> = { getHandle: async () => ({ value: handle(ZERO_ADDRESS), slot: 1n }) };
    const client = await connect({ chain: fakeChain(chain) });
    expect((await call(client, 'get_records', { name: 'gone' })).structuredContent.code).toBe('HANDLE_NOT_REGISTERED');
  });
});

describe('the relay tools', () => {
  it('the service unreachable: isError API_UNREACHABLE', async () => {
    const client = await connect({ apiUrl: 'http://127.0.0.1:1' });
    for (const [name, args] of [
      ['resolve_name', { name: 'alice' }],
      ['reverse_lookup', { address: 'x' }],
    ] as const) {
      const got = await call(client, name, args);
      expect(got.isError).toBe(true);
      expect(got.structuredContent.code).toBe('API_UNREACHABLE');
    }
  });

  it('percent-encodes the name once, and relays a non-JSON body as is (json null)', async () => {
    const seen: string[] = [];
    const client = await connect({
      apiUrl: 'http://api.test',
      fetch: (async (url: string) => {
        seen.push(url);
        return new Response('plain text', { status: 418 });
      }) as typeof fetch,
    });
    const got = await call(client, 'resolve_name', { name: '@a b/c%' });
    expect(seen).toEqual(['http://api.test/resolve/%40a%20b%2Fc%25']);
    expect(got.structuredContent).toEqual({ status: 418, body: 'plain text', json: null });
  });

  it('a dot-only name cannot be a path segment: BAD_REQUEST, nothing sent', async () => {
    const client = await connect({
      fetch: (async () => {
        throw new Error('must not be called');
      }) as unknown as typeof fetch,
    });
    expect((await call(client, 'resolve_name', { name: '..' })).structuredContent.code).toBe('BAD_REQUEST');
  });
});

describe('the server around the tools', () => {
  const shape = { n: z.number() };
  const base = {
    title: 'Probe',
    description: 'probe',
    inputSchema: {},
    outputSchema: shape,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  } as const;
  const throwing: ToolDefinition = {
    ...base,
    name: 'throws',
    run: async () => {
      throw new Error('boom');
    },
  };
  const wrongShape: ToolDefinition = {
    ...base,
    name: 'wrong_shape',
    run: async () => ({ ok: true, value: { n: 'not a number' } as never }),
  };

  it('a tool that throws is INTERNAL_ERROR; one whose output breaks its schema is INTERNAL_ERROR too', async () => {
    const client = await connect({}, [throwing, wrongShape]);
    const thrown = await call(client, 'throws', {});
    expect(thrown.structuredContent).toEqual({ code: 'INTERNAL_ERROR', message: 'the tool failed unexpectedly' });
    const wrong = await call(client, 'wrong_shape', {});
    expect(wrong.isError).toBe(true);
    expect(wrong.structuredContent.code).toBe('INTERNAL_ERROR');
  });

  it('every listed output schema accepts the error shape and the success shape', async () => {
    const client = await connect({});
    const { tools } = await client.listTools();
    for (const tool of tools) {
      const anyOf = (tool.outputSchema as unknown as { anyOf: { required?: string[] }[] }).anyOf;
      expect(anyOf, tool.name).toHaveLength(2);
      expect(anyOf[1]!.required).toEqual(['code', 'message']);
    }
  });

  it('a duplicate or badly named tool is refused at start', () => {
    expect(() => compileTools([throwing, throwing])).toThrow(/twice/);
    expect(() => compileTools([{ ...throwing, name: 'bad name' }])).toThrow(/bad tool name/);
  });
});

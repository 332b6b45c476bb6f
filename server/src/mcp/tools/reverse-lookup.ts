// reverse_lookup: GET /reverse/:address of the Sigil service, relayed byte for byte (docs/mcp.md).
import { z } from 'zod';
import type { ToolDefinition } from '../tool';
import { relayGet, relayOutputSchema } from './api-relay';

const inputSchema = {
  address: z.string().min(1).max(128).describe('A wallet address (base58 public key).'),
};

export const reverseLookupTool: ToolDefinition<typeof inputSchema, typeof relayOutputSchema> = {
  name: 'reverse_lookup',
  title: 'Find the primary handle of a wallet',
  description:
    "Finds a wallet's primary @handle by relaying GET /reverse/{address} of the Sigil service unchanged. Returns the " +
    'HTTP `status` and the exact `body` (plus `json`). 200: the primary handle. 404 "no primary set": the wallet has ' +
    'no primary, or its pointer fails a trust rule (set before the handle was registered, or the wallet no longer ' +
    'controls the handle) — treat the wallet as anonymous. 400 "invalid address": not a base58 public key. 502: chain ' +
    'trouble, retry later. isError with API_UNREACHABLE only when the service cannot be reached.',
  inputSchema,
  outputSchema: relayOutputSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  run: ({ address }, deps) => relayGet(deps, 'reverse', address),
};

// resolve_name: GET /resolve/:name of the Sigil service, relayed byte for byte (docs/mcp.md).
import { z } from 'zod';
import type { ToolDefinition } from '../tool';
import { relayGet, relayOutputSchema } from './api-relay';

const inputSchema = {
  name: z
    .string()
    .min(1)
    .max(256)
    .describe('A handle (`alice` or `@alice`, case-insensitive) or a registry domain (`satoshi.x1`).'),
};

export const resolveNameTool: ToolDefinition<typeof inputSchema, typeof relayOutputSchema> = {
  name: 'resolve_name',
  title: 'Resolve a Sigil name',
  description:
    'Resolves a Sigil @handle or registry domain to its owner wallet by relaying GET /resolve/{name} of the Sigil ' +
    'service unchanged. Returns the HTTP `status` and the exact `body` (plus `json`, the parsed body). 200: the ' +
    'resolution object {input, name, namespace, owner, tokenized, verification}. Other statuses carry {error, input}: ' +
    '400 "invalid handle" / "invalid domain" (fix the spelling), 404 "handle not registered" / "domain not ' +
    'registered", 409 "ambiguous" (input like @satoshi.x1 is both shapes: drop the @ for the domain or the suffix ' +
    'for the handle), 502 (chain trouble: retry later). isError with API_UNREACHABLE only when the service cannot be ' +
    'reached.',
  inputSchema,
  outputSchema: relayOutputSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  run: ({ name }, deps) => relayGet(deps, 'resolve', name),
};

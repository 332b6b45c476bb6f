// check_availability: whether a handle can be registered — the name grammar first (contract/names), then whether its
// registry account exists on chain (a released handle keeps its account with the owner zeroed and can be registered
// again).
import { classifyName, MAX_HANDLE_LENGTH } from '@sigil/contract/names';
import { z } from 'zod';
import { isHandleReleased } from '../../platform/chain/trust-rules';
import { ChainError } from '../../platform/chain/types';
import type { ToolDefinition } from '../tool';

const inputSchema = {
  name: z.string().min(1).max(256).describe('The handle to check, with or without the leading @ (e.g. `@alice`).'),
};

const outputSchema = {
  handle: z.string().describe('The normalized handle (lowercase, no @).'),
  available: z.boolean().describe('true: nobody holds it; prepare_register can register it.'),
  reason: z
    .enum(['registered', 'released'])
    .optional()
    .describe('`registered`: taken. `released`: the previous owner released it; registering starts a new epoch.'),
  slot: z.number().int().nonnegative().describe('The chain slot of the read (commitment `confirmed`).'),
};

export const checkAvailabilityTool: ToolDefinition<typeof inputSchema, typeof outputSchema> = {
  name: 'check_availability',
  title: 'Check whether a handle is available',
  description:
    'Checks whether a Sigil @handle can be registered: validates the name (1-32 characters of a-z, 0-9, _ in ' +
    'dot-separated labels; not a domain like name.x1) and reads its registry account on chain. Returns ' +
    '{handle, available, reason?, slot}. isError INVALID_HANDLE: the name can never be a handle (the message says ' +
    'why). isError RPC_ERROR: the chain could not be read; retry later.',
  inputSchema,
  outputSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async run({ name }, deps) {
    const cls = classifyName(name);
    if (cls.kind !== 'handle') {
      const why =
        cls.kind === 'domain'
          ? `"${name}" is a domain, not a handle`
          : cls.kind === 'ambiguous'
            ? `"${name}" is both handle- and domain-shaped; drop the domain suffix`
            : `"${name}" is not a handle: 1-${MAX_HANDLE_LENGTH} characters of a-z, 0-9 and _ in dot-separated labels`;
      return { ok: false, code: 'INVALID_HANDLE', message: why };
    }
    try {
      const { value: account, slot } = await deps.chain.getHandle(cls.name, 'confirmed');
      const base = { handle: cls.name, slot: Number(slot) };
      if (!account) return { ok: true, value: { ...base, available: true } };
      if (isHandleReleased(account)) return { ok: true, value: { ...base, available: true, reason: 'released' } };
      return { ok: true, value: { ...base, available: false, reason: 'registered' } };
    } catch (err) {
      if (!(err instanceof ChainError)) throw err;
      return {
        ok: false,
        code: 'RPC_ERROR',
        message:
          err.kind === 'malformed'
            ? 'the chain returned an account that does not decode'
            : 'the chain RPC is unreachable',
      };
    }
  },
};

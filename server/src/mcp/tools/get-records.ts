// get_records: a handle's live cross-chain address records with their verification status, read from the chain by
// the same function as GET /v1/resolve (features/universal): stale records (written under a previous owner or
// registration) are left out; `verified` means the program checked a signature by that address.
import { ApiError } from '@sigil/contract/errors';
import { classifyName } from '@sigil/contract/names';
import { AddressRecordSchema } from '@sigil/contract/universal';
import { z } from 'zod';
import { readNativeHandle } from '../../features/universal/index';
import type { ToolDefinition } from '../tool';

const inputSchema = {
  name: z.string().min(1).max(256).describe('The handle, with or without the leading @ (e.g. `@alice`).'),
};

const outputSchema = {
  handle: z.string().describe('The normalized handle.'),
  owner: z.string().describe('The registered owner; informational when `tokenized`.'),
  authority: z.string().describe('Who controls the handle now: the owner, or the holder of its NFT.'),
  tokenized: z.boolean(),
  records: z
    .array(z.object(AddressRecordSchema.shape))
    .describe('Live address records, sorted by chain; stale ones are not listed.'),
  slot: z.number().int().nonnegative().describe('The chain slot of the read (commitment `confirmed`).'),
};

export const getRecordsTool: ToolDefinition<typeof inputSchema, typeof outputSchema> = {
  name: 'get_records',
  title: 'Read the cross-chain addresses of a handle',
  description:
    "Reads a Sigil @handle's live cross-chain address records from the chain: for each chain key (X1, SOL, ETH, BTC) " +
    'the address and whether it is `verified` (the registry checked a signature by that address; only verified ' +
    'addresses are proof the handle owner controls them — prefer them when sending funds). Records written under a ' +
    'previous owner are stale and omitted. isError INVALID_HANDLE (not a handle), HANDLE_NOT_REGISTERED (not registered, ' +
    'or nobody controls it now), RPC_ERROR (chain unreadable; retry later).',
  inputSchema,
  outputSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async run({ name }, deps) {
    const cls = classifyName(name);
    if (cls.kind !== 'handle') return { ok: false, code: 'INVALID_HANDLE', message: `"${name}" is not a handle` };
    try {
      const native = await readNativeHandle(deps.chain, cls.name, true);
      return {
        ok: true,
        value: {
          handle: native.name,
          owner: native.owner,
          authority: native.authority,
          tokenized: native.tokenized,
          records: native.addresses,
          slot: Number(native.slot),
        },
      };
    } catch (err) {
      if (err instanceof ApiError) return { ok: false, code: err.code, message: err.message };
      throw err;
    }
  },
};

// prepare_set_record: the unsigned set_record instruction and transaction creating or updating one text record.
// The program's key and value rules are checked first (the same constants its emulator enforces), and so is the
// signer's authority over the handle, so that an agent does not sign a transaction bound to fail.
import { z } from 'zod';
import {
  findRecordPda,
  getSetRecordInstruction,
  RECORD_VALUE_MAX_BYTES,
  TEXT_RECORD_KEY_PATTERN,
} from '../../platform/chain/registry';
import type { ToolDefinition } from '../tool';
import {
  chainFailure,
  handleNameArg,
  instructionJson,
  instructionSchema,
  simulatedTransaction,
  unsignedTransactionSchema,
  walletArg,
} from './unsigned-tx';

const SET_RECORD_ACCOUNTS = ['authority', 'handle', 'record', 'systemProgram'];

const inputSchema = {
  handle: z.string().max(64).describe('The handle whose record to set, with or without the leading @.'),
  key: z
    .string()
    .max(64)
    .describe('The text record key: 1-32 of a-z 0-9 . _ - (e.g. "url", "agent.manifest", "agent.mcp").'),
  value: z.string().max(4096).describe('The record value: 1-512 UTF-8 bytes.'),
  authority: z
    .string()
    .max(64)
    .describe("The wallet (base58) that will sign: the handle's owner, or the holder of its NFT when tokenized."),
};

const outputSchema = {
  handle: z.string(),
  handleAccount: z.string(),
  key: z.string(),
  value: z.string(),
  recordAccount: z.string(),
  /** Whether the record exists now (the transaction updates it) or is created (the signer pays its rent). */
  action: z.enum(['create', 'update']),
  authority: z.string(),
  instruction: instructionSchema,
  transaction: unsignedTransactionSchema,
};

export const prepareSetRecordTool: ToolDefinition<typeof inputSchema, typeof outputSchema> = {
  name: 'prepare_set_record',
  title: 'Prepare a text record update (unsigned)',
  description:
    'Builds the UNSIGNED registry `set_record` transaction that creates or updates ONE text record of a handle; ' +
    'this server never signs or sends. Returns the instruction and `transaction.base64` (v0, recent blockhash, ' +
    'zeroed signature slot, fee payer = authority). The authority signs and sends it before `lastValidBlockHeight`. ' +
    'Writing a record resets nothing else; an existing record with the key is overwritten. Codes: INVALID_HANDLE, ' +
    'INVALID_WALLET, BAD_REQUEST (key or value outside the program rules), HANDLE_NOT_REGISTERED, NOT_CONTROLLER ' +
    '(the wallet holds no authority over the handle: use the owner or NFT holder), RPC_ERROR (retry), PROGRAM_ERROR ' +
    "(the prepared transaction was simulated and would fail: the message starts with the program error's name).",
  inputSchema,
  outputSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(args, deps) {
    const handleArg = handleNameArg(args.handle);
    if (!handleArg.ok) return handleArg;
    const { name } = handleArg;
    if (!TEXT_RECORD_KEY_PATTERN.test(args.key)) {
      return { ok: false, code: 'BAD_REQUEST', message: 'key must be 1-32 characters of a-z 0-9 . _ -' };
    }
    const valueBytes = Buffer.byteLength(args.value, 'utf8');
    if (valueBytes === 0 || valueBytes > RECORD_VALUE_MAX_BYTES) {
      return {
        ok: false,
        code: 'BAD_REQUEST',
        message: `value must be 1-${RECORD_VALUE_MAX_BYTES} UTF-8 bytes (got ${valueBytes})`,
      };
    }
    const authority = walletArg(args.authority, 'authority');
    if (!authority.ok) return authority;

    const programId = deps.chain.programId;
    try {
      const { value: handle } = await deps.chain.getHandle(name);
      if (!handle) return { ok: false, code: 'HANDLE_NOT_REGISTERED', message: `@${name} is not registered` };
      const control = await deps.chain.getHandleAuthority(handle);
      if (control.authority !== authority.address) {
        const who = control.authority ? `only ${control.authority} can` : `nobody can (${control.reason})`;
        return {
          ok: false,
          code: 'NOT_CONTROLLER',
          message: `${authority.address} holds no authority over @${name}: ${who} set its records`,
        };
      }
      const [record] = await findRecordPda(programId, handle.address, 'text', args.key);
      const records = await deps.chain.getRecords(handle.address);
      const ix = getSetRecordInstruction({
        programId,
        authority: authority.address,
        handle: handle.address,
        record,
        kind: 'text',
        key: args.key,
        value: args.value,
      });
      const simulated = await simulatedTransaction(deps.chain, authority.address, [ix]);
      if (!simulated.ok) return simulated;
      return {
        ok: true,
        value: {
          handle: name,
          handleAccount: handle.address,
          key: args.key,
          value: args.value,
          recordAccount: record,
          action: records.some((r) => r.address === record) ? 'update' : 'create',
          authority: authority.address,
          instruction: instructionJson(ix, SET_RECORD_ACCOUNTS),
          transaction: simulated.transaction,
        },
      };
    } catch (err) {
      return chainFailure(err);
    }
  },
};

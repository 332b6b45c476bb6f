// prepare_register: the unsigned register instruction and transaction for a free handle. The price is whatever the
// program charges when the transaction lands: the instruction carries none, so there is nothing to quote here.
import { z } from 'zod';
import { findHandlePda, getRegisterInstruction, HANDLE_TYPE_AGENT } from '../../platform/chain/registry';
import { isHandleReleased } from '../../platform/chain/trust-rules';
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

const HANDLE_TYPE_STANDARD = 0;
const REGISTER_ACCOUNTS = ['payer', 'owner', 'handle', 'systemProgram'];

const inputSchema = {
  handle: z.string().max(64).describe('The handle to register, with or without the leading @ (e.g. "@newname").'),
  owner: z.string().max(64).describe('The wallet (base58) that will own the handle; it signs the transaction.'),
  payer: z
    .string()
    .max(64)
    .optional()
    .describe('The wallet (base58) paying fees, rent and price; defaults to owner. It signs too.'),
  agent: z
    .boolean()
    .optional()
    .describe('Register an Agent handle (handleType 3, permanent). Default false: a standard handle.'),
};

const outputSchema = {
  handle: z.string(),
  handleAccount: z.string(),
  handleType: z.number().int(),
  owner: z.string(),
  payer: z.string(),
  /** Registering a released handle starts a new epoch; records and primaries of the old one become stale. */
  reRegistration: z.boolean(),
  instruction: instructionSchema,
  transaction: unsignedTransactionSchema,
  price: z.string(),
};

export const prepareRegisterTool: ToolDefinition<typeof inputSchema, typeof outputSchema> = {
  name: 'prepare_register',
  title: 'Prepare a handle registration (unsigned)',
  description:
    'Builds the UNSIGNED registry `register` transaction for a free handle; this server never signs or sends. ' +
    'Returns the instruction (program, accounts with roles, base64 data) and `transaction.base64`: a v0 transaction ' +
    'with a recent blockhash and zeroed signature slots, fee payer = payer (default owner). Have `transaction.signers` ' +
    '(payer and owner) sign it and send it with sendTransaction before `lastValidBlockHeight`; prepare again if it ' +
    'expired. The price is computed by the program when the transaction lands (the instruction carries none). ' +
    'Codes: INVALID_HANDLE (not a handle; domains like name.x1 are not), INVALID_WALLET, HANDLE_TAKEN (registered: ' +
    'pick another name), RPC_ERROR (chain unreachable; retry), PROGRAM_ERROR (the prepared transaction was simulated and would fail: ' +
    "the message starts with the program error's name, e.g. `AuctionHasBids (0x1791, instruction 0): …`).",
  inputSchema,
  outputSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(args, deps) {
    const handleArg = handleNameArg(args.handle);
    if (!handleArg.ok) return handleArg;
    const { name } = handleArg;
    const owner = walletArg(args.owner, 'owner');
    if (!owner.ok) return owner;
    const payer = args.payer === undefined ? owner : walletArg(args.payer, 'payer');
    if (!payer.ok) return payer;

    const programId = deps.chain.programId;
    try {
      const { value: existing } = await deps.chain.getHandle(name);
      if (existing && !isHandleReleased(existing)) {
        return { ok: false, code: 'HANDLE_TAKEN', message: `@${name} is already registered` };
      }
      // The program keeps an Agent handle an Agent across re-registrations: asking for less would fail on chain.
      const handleType =
        args.agent || existing?.handleType === HANDLE_TYPE_AGENT ? HANDLE_TYPE_AGENT : HANDLE_TYPE_STANDARD;
      const [handle] = await findHandlePda(programId, name);
      const ix = getRegisterInstruction({
        programId,
        payer: payer.address,
        owner: owner.address,
        handle,
        name,
        handleType,
      });
      const simulated = await simulatedTransaction(deps.chain, payer.address, [ix]);
      if (!simulated.ok) return simulated;
      return {
        ok: true,
        value: {
          handle: name,
          handleAccount: handle,
          handleType,
          owner: owner.address,
          payer: payer.address,
          reRegistration: existing !== null,
          instruction: instructionJson(ix, REGISTER_ACCOUNTS),
          transaction: simulated.transaction,
          price: 'computed by the program when the transaction lands; the instruction carries no price',
        },
      };
    } catch (err) {
      return chainFailure(err);
    }
  },
};

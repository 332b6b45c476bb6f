// prepare_offer and prepare_bid: the unsigned market transactions an agent most often needs (an offer on a name, a
// bid in its auction), built with the market's one builder and simulated before they are handed out, so an offer on
// a tokenized name, a second offer, a seller's own bid or a bid under 5 % comes back as the program's error by name
// (PROGRAM_ERROR) instead of a transaction that cannot land.
import type { Address, Instruction } from '@solana/kit';
import { z } from 'zod';
import { getMarketInstruction, MARKET_INSTRUCTIONS, MARKET_PDAS } from '../../platform/chain/registry';
import { isHandleReleased } from '../../platform/chain/trust-rules';
import type { ToolDefinition, ToolDeps } from '../tool';
import {
  chainFailure,
  handleNameArg,
  instructionJson,
  instructionSchema,
  simulatedTransaction,
  unsignedTransactionSchema,
  walletArg,
  type Failure,
} from './unsigned-tx';

const LAMPORTS = /^[1-9]\d{0,19}$/;
const accountNames = (name: keyof typeof MARKET_INSTRUCTIONS) => MARKET_INSTRUCTIONS[name].accounts.map(([n]) => n);

const handleArg = z.string().max(64).describe('The handle, with or without the leading @ (e.g. "@gavel").');
const amountArg = z
  .string()
  .max(20)
  .describe('The amount in lamports (1 native unit = 1000000000), as a decimal string.');

const outputSchema = {
  handle: z.string(),
  handleAccount: z.string(),
  /** The offer or auction account. */
  marketAccount: z.string(),
  amount: z.string(),
  instruction: instructionSchema,
  transaction: unsignedTransactionSchema,
};

type Prepared = { ok: true; value: z.infer<z.ZodObject<typeof outputSchema>> } | Failure;

/** The parts both tools check first: the handle, the wallet, the amount, then a live handle on chain. */
async function common(args: { handle: string; amount: string }, wallet: string, what: string, deps: ToolDeps) {
  const handleArg = handleNameArg(args.handle);
  if (!handleArg.ok) return handleArg;
  const { name } = handleArg;
  const signer = walletArg(wallet, what);
  if (!signer.ok) return signer;
  if (!LAMPORTS.test(args.amount) || BigInt(args.amount) >= 2n ** 64n)
    return { ok: false, code: 'BAD_REQUEST', message: 'amount must be a positive integer number of lamports' } as const;
  const { value: handle } = await deps.chain.getHandle(name);
  if (!handle || isHandleReleased(handle))
    return { ok: false, code: 'HANDLE_NOT_REGISTERED', message: `@${name} is not registered` } as const;
  return { ok: true, name, signer: signer.address, handle, amount: BigInt(args.amount) } as const;
}

/** Both tools' answer: the one instruction, simulated, with the market account it opens or bids in. */
async function prepared(
  deps: ToolDeps,
  checked: Extract<Awaited<ReturnType<typeof common>>, { ok: true }>,
  instruction: 'make_offer' | 'place_bid',
  marketAccount: Address,
  ix: Instruction,
): Promise<Prepared> {
  const simulated = await simulatedTransaction(deps.chain, checked.signer, [ix]);
  if (!simulated.ok) return simulated;
  return {
    ok: true,
    value: {
      handle: checked.name,
      handleAccount: checked.handle.address,
      marketAccount,
      amount: checked.amount.toString(),
      instruction: instructionJson(ix, accountNames(instruction)),
      transaction: simulated.transaction,
    },
  };
}

const offerInput = {
  handle: handleArg,
  buyer: z.string().max(64).describe('The wallet (base58) making the offer; it signs and the amount is held from it.'),
  amount: amountArg,
};

export const prepareOfferTool: ToolDefinition<typeof offerInput, typeof outputSchema> = {
  name: 'prepare_offer',
  title: 'Prepare an offer on a handle (unsigned)',
  description:
    'Builds the UNSIGNED registry `make_offer` transaction: `buyer` offers `amount` lamports for an untokenized ' +
    'handle; the amount is held in the offer account until the owner accepts or the buyer cancels. One offer per ' +
    'wallet per handle. The transaction is simulated first. Codes: INVALID_HANDLE, INVALID_WALLET, BAD_REQUEST ' +
    '(amount), HANDLE_NOT_REGISTERED, RPC_ERROR, PROGRAM_ERROR (would fail; the message starts with the name, e.g. ' +
    '`HandleIsTokenized` for a tokenized handle, `AccountAlreadyInUse` for a second offer from the same wallet).',
  inputSchema: offerInput,
  outputSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(args, deps): Promise<Prepared> {
    try {
      const checked = await common(args, args.buyer, 'buyer', deps);
      if (!checked.ok) return checked;
      const programId = deps.chain.programId;
      const [offer] = await MARKET_PDAS.offer(programId, checked.handle.address, checked.signer);
      const ix = getMarketInstruction(
        programId,
        'make_offer',
        { amount: checked.amount },
        { buyer: checked.signer, handle: checked.handle.address, offer },
      );
      return await prepared(deps, checked, 'make_offer', offer, ix);
    } catch (err) {
      return chainFailure(err);
    }
  },
};

const bidInput = {
  handle: handleArg,
  bidder: z.string().max(64).describe('The wallet (base58) bidding; it signs and the bid is held from it.'),
  amount: amountArg,
};

export const prepareBidTool: ToolDefinition<typeof bidInput, typeof outputSchema> = {
  name: 'prepare_bid',
  title: "Prepare a bid in a handle's auction (unsigned)",
  description:
    "Builds the UNSIGNED registry `place_bid` transaction in the handle's running auction. The first bid is at least " +
    'the reserve, each later one at least 5 % over the high bid (whose bidder is refunded); a bid in the last 300 s ' +
    'moves the end to now + 300 s. The transaction is simulated first. Codes: INVALID_HANDLE, INVALID_WALLET, ' +
    'BAD_REQUEST (amount), HANDLE_NOT_REGISTERED, NOT_FOUND (no auction for the handle), RPC_ERROR, PROGRAM_ERROR ' +
    '(would fail: `BidTooLow`, `SellerCannotBid`, `AuctionEnded` …, named at the start of the message).',
  inputSchema: bidInput,
  outputSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(args, deps): Promise<Prepared> {
    try {
      const checked = await common(args, args.bidder, 'bidder', deps);
      if (!checked.ok) return checked;
      const programId = deps.chain.programId;
      const [auction] = await MARKET_PDAS.auction(programId, checked.handle.address);
      const state = await deps.chain.getMarketAccount('Auction', auction);
      if (!state) return { ok: false, code: 'NOT_FOUND', message: `@${checked.name} is not at auction` };
      const ix = getMarketInstruction(
        programId,
        'place_bid',
        { amount: checked.amount },
        {
          bidder: checked.signer,
          handle: checked.handle.address,
          auction,
          previousBidder: state.highBidder ?? checked.signer,
        },
      );
      return await prepared(deps, checked, 'place_bid', auction, ix);
    } catch (err) {
      return chainFailure(err);
    }
  },
};

// prepare_x402_payment: from a 402 challenge (given, or fetched from the service), the unsigned payment transaction
// of the spec's fixed shape, the redeem message to sign after finality and the headers of the retry. The shape is
// built by the SDK's payer helper (one implementation of the layout for every payer), with a no-op signer: this
// server holds no keys.
import { address, createNoopSigner } from '@solana/kit';
import { z } from 'zod';
import { buildPaymentInstructions } from '@sigil/client-sdk/x402';
import { X402_HEADERS, X402_SCHEME, X402_VERSION } from '@sigil/contract/x402';
import type { ToolDefinition } from '../tool';
import {
  chainFailure,
  instructionJson,
  instructionSchema,
  unsignedTransaction,
  unsignedTransactionSchema,
  walletArg,
} from './unsigned-tx';
import {
  acceptIndexArg,
  boundEntry,
  challengeArg,
  fetchChallenge,
  networkMismatch,
  parseChallenge,
  serviceUrl,
} from './x402-challenge';

const TRANSFER_ACCOUNTS = ['source', 'mint', 'destination', 'authority', 'reference'];

const inputSchema = {
  challenge: challengeArg.optional(),
  url: z
    .string()
    .max(2048)
    .optional()
    .describe(
      'Instead of challenge: a metered URL of the Sigil service (absolute, or a path like /v1/resolve/alice); it is ' +
        'fetched with GET and X-Payer = payer, and its 402 challenge is used.',
    ),
  payer: z
    .string()
    .max(64)
    .describe('The paying wallet (base58): it signs the payment and, later, the redeem message.'),
  acceptIndex: acceptIndexArg,
};

const outputSchema = {
  network: z.string(),
  asset: z.string(),
  payTo: z.string(),
  /** Smallest units of the asset. */
  amount: z.string(),
  decimals: z.number().int(),
  reference: z.string(),
  requestHash: z.string(),
  payer: z.string(),
  /** The payer's associated token account (debited) and payTo's (credited): both must exist already. */
  payerTokenAccount: z.string(),
  payToTokenAccount: z.string(),
  instructions: z.array(instructionSchema),
  transaction: unsignedTransactionSchema,
  /** What the payer signs (ed25519, base58, raw UTF-8) once the payment is finalized. */
  redeemMessage: z.string(),
  retry: z.object({
    /** The URL the challenge came from, when this tool fetched it. */
    url: z.string().optional(),
    /** Send these headers unchanged on the retry (the identical request: same method, path, query and body). */
    headers: z.record(z.string(), z.string()),
    /** The payment header's name, and its JSON before base64: fill payload.payerSig, then base64 it. */
    paymentHeader: z.string(),
    payment: z.object({
      x402Version: z.number().int(),
      accepted: z.object({ scheme: z.string(), network: z.string() }),
      payload: z.object({ reference: z.string(), payerSig: z.string() }),
    }),
  }),
  steps: z.array(z.string()),
};

export const prepareX402PaymentTool: ToolDefinition<typeof inputSchema, typeof outputSchema> = {
  name: 'prepare_x402_payment',
  title: 'Prepare an x402 payment (unsigned)',
  description:
    'For a Sigil x402 402 challenge (pass `challenge`, or `url` of a metered Sigil endpoint to fetch it with ' +
    'X-Payer), builds the UNSIGNED payment transaction of the fixed shape the service accepts: SetComputeUnitLimit, ' +
    'SetComputeUnitPrice, one TransferChecked of `amount` to the associated token account of payTo with the ' +
    'reference appended read-only. Fee payer = payer. This server never signs or sends. Then: the payer signs and ' +
    'sends `transaction.base64`, waits for finality, signs `redeemMessage`, and retries the identical request with ' +
    '`retry.headers` plus the payment header (`retry.payment` with payload.payerSig filled, base64 JSON). ' +
    'verify_x402_payment tells whether that retry will be served. Codes: BAD_REQUEST (not a challenge), ' +
    'INVALID_WALLET, URL_REJECTED (url outside the Sigil service), PAYER_REQUIRED (challenge without reference), ' +
    'PAYER_MISMATCH (challenge bound to another payer), PAYMENT_NETWORK_UNSUPPORTED (another chain), RPC_ERROR.',
  inputSchema,
  outputSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(args, deps) {
    if ((args.challenge === undefined) === (args.url === undefined)) {
      return { ok: false, code: 'BAD_REQUEST', message: 'pass exactly one of challenge and url' };
    }
    const payer = walletArg(args.payer, 'payer');
    if (!payer.ok) return payer;
    let fetchedFrom: string | undefined;
    let read;
    if (args.url !== undefined) {
      const target = serviceUrl(deps, args.url);
      if (!target.ok) return target;
      fetchedFrom = target.url;
      read = await fetchChallenge(deps, target.url, payer.address);
    } else {
      read = parseChallenge(args.challenge);
    }
    if (!read.ok) return read;
    const picked = boundEntry(read.challenge, args.acceptIndex, payer.address);
    if (!picked.ok) return picked;
    const { entry, reference, redeemMessage } = picked.bound;

    try {
      const mismatch = await networkMismatch(deps, entry);
      if (mismatch) return mismatch;
      const mint = await deps.chain.getMint(address(entry.asset));
      if (!mint) return { ok: false, code: 'BAD_REQUEST', message: `the asset ${entry.asset} is not a mint here` };
      const instructions = await buildPaymentInstructions(entry, createNoopSigner(payer.address), { mint });
      const transaction = await unsignedTransaction(deps.chain, payer.address, instructions);
      const transfer = instructionJson(instructions[2]!, TRANSFER_ACCOUNTS);
      return {
        ok: true,
        value: {
          network: entry.network,
          asset: entry.asset,
          payTo: entry.payTo,
          amount: entry.amount,
          decimals: mint.decimals,
          reference,
          requestHash: entry.extra.requestHash,
          payer: payer.address,
          payerTokenAccount: transfer.accounts[0]!.address,
          payToTokenAccount: transfer.accounts[2]!.address,
          instructions: [instructionJson(instructions[0]!), instructionJson(instructions[1]!), transfer],
          transaction,
          redeemMessage,
          retry: {
            ...(fetchedFrom !== undefined ? { url: fetchedFrom } : {}),
            headers: { [X402_HEADERS.payer]: payer.address },
            paymentHeader: X402_HEADERS.payment,
            payment: {
              x402Version: X402_VERSION,
              accepted: { scheme: X402_SCHEME, network: entry.network },
              payload: { reference, payerSig: '<base58 ed25519 signature of redeemMessage by payer>' },
            },
          },
          steps: [
            'payer signs transaction.base64 and sends it (sendTransaction) before lastValidBlockHeight',
            'wait until the transaction is finalized',
            'payer signs redeemMessage (UTF-8 bytes, ed25519) and base58-encodes the signature',
            `retry the identical request with ${X402_HEADERS.payer} and ${X402_HEADERS.payment} = base64(JSON of retry.payment with payerSig set)`,
          ],
        },
      };
    } catch (err) {
      return chainFailure(err);
    }
  },
};

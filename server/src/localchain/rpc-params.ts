// The parameters of the local chain's JSON-RPC methods: zod schemas (built once), positional-argument parsing into
// -32602 errors with the node's wording, and the wire codecs the methods share.
import {
  getBase64Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Address,
  type ReadonlyUint8Array,
} from '@solana/kit';
import { z } from 'zod';
import { base58ToBytes, bytesToBase58, isAddressText } from './base58';
import { COMMITMENTS, type Commitment } from './ledger';
import { RpcError } from './rpc-error';

export const RPC_API_VERSION = '2.2.0';
export const RPC_FEATURE_SET = 3294202862;
export const U64_MAX = 18_446_744_073_709_551_615n;
export const MAX_BASE58_BYTES = 128;

export const invalidParams = (message: string) => new RpcError(-32602, message);

const base64Encoder = getBase64Encoder();
const base64Decoder = getBase64Decoder();
export const toBase58 = bytesToBase58;
export const toBase64 = (bytes: ReadonlyUint8Array) => base64Decoder.decode(bytes);
export const fromBase58 = base58ToBytes;
export const fromBase64 = (text: string) => new Uint8Array(base64Encoder.encode(text));
export const messageDecoder = getCompiledTransactionMessageDecoder();
export const transactionDecoder = getTransactionDecoder();

// ---- parameter schemas -------------------------------------------------------------------------------------------

export const address = z
  .string()
  .refine(isAddressText, { message: 'Invalid param: Invalid' })
  .transform((s) => s as Address);
const commitment = z.enum(COMMITMENTS as [Commitment, ...Commitment[]]);
export const u64 = z.union([z.number().int().nonnegative(), z.bigint()]).transform((n) => BigInt(n));
export const dataSlice = z.object({ offset: z.number().int().nonnegative(), length: z.number().int().nonnegative() });
export const accountEncoding = z.enum(['base58', 'base64', 'base64+zstd', 'jsonParsed']);
const accountConfig = z
  .object({
    commitment: commitment.optional(),
    encoding: accountEncoding.optional(),
    dataSlice: dataSlice.optional(),
    minContextSlot: u64.optional(),
  })
  .passthrough();
const commitmentConfig = z.object({ commitment: commitment.optional(), minContextSlot: u64.optional() }).passthrough();
const memcmp = z.object({
  memcmp: z.object({
    offset: z.number().int().nonnegative(),
    bytes: z.string(),
    encoding: z.enum(['base58', 'base64']).optional(),
  }),
});
const dataSize = z.object({ dataSize: z.number().int().nonnegative() });
export const programAccountsConfig = accountConfig.extend({
  filters: z
    .array(z.union([memcmp, dataSize]))
    .max(4)
    .optional(),
  withContext: z.boolean().optional(),
});

// Every schema is built once, here: zod v4 compiles a schema on its first parse, so building one per call
// costs far more than the parse itself.
export const optionalCommitmentConfig = commitmentConfig.optional();
export const optionalAccountConfig = accountConfig.optional();
export const optionalProgramAccountsConfig = programAccountsConfig.optional();
export const text = z.string();
export const addressList = z.array(address).max(100);
export const signaturesForAddressConfig = z
  .object({
    limit: z.number().int().min(1).max(1000).optional(),
    before: z.string().optional(),
    until: z.string().optional(),
    commitment: commitment.optional(),
    minContextSlot: u64.optional(),
  })
  .passthrough()
  .optional();
export const signatureList = z.array(z.string()).max(256);
export const signatureStatusesConfig = z
  .object({ searchTransactionHistory: z.boolean().optional() })
  .passthrough()
  .optional();
export const getTransactionConfig = z
  .object({
    encoding: z.enum(['json', 'jsonParsed', 'base64', 'base58']).optional(),
    commitment: commitment.optional(),
    maxSupportedTransactionVersion: z.number().int().min(0).max(0).optional(),
  })
  .passthrough()
  .optional();
export const sendTransactionConfig = z
  .object({
    encoding: z.enum(['base58', 'base64']).optional(),
    skipPreflight: z.boolean().optional(),
    preflightCommitment: commitment.optional(),
    maxRetries: z.number().int().nonnegative().optional(),
    minContextSlot: u64.optional(),
  })
  .passthrough()
  .optional();
export const simulateTransactionConfig = z
  .object({
    encoding: z.enum(['base58', 'base64']).optional(),
    sigVerify: z.boolean().optional(),
    replaceRecentBlockhash: z.boolean().optional(),
    commitment: commitment.optional(),
    minContextSlot: u64.optional(),
    innerInstructions: z.boolean().optional(),
    accounts: z.object({ addresses: z.array(address), encoding: accountEncoding.optional() }).optional(),
  })
  .passthrough()
  .optional();

function parse<T extends z.ZodTypeAny>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw invalidParams(`Invalid params: ${issue?.path.join('.') || 'params'}: ${issue?.message ?? 'invalid'}`);
  }
  return result.data;
}

/** Positional params: `[required..., optional config]`. */
export function args<T extends z.ZodTypeAny[]>(params: unknown, ...schemas: T): { [K in keyof T]: z.infer<T[K]> } {
  const list = params === undefined || params === null ? [] : params;
  if (!Array.isArray(list)) throw invalidParams('Invalid params: params must be an array');
  if (list.length > schemas.length)
    throw invalidParams(`Invalid params: expected at most ${schemas.length} parameters`);
  return schemas.map((schema, i) => parse(schema, list[i])) as { [K in keyof T]: z.infer<T[K]> };
}

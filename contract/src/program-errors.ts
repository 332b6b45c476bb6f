// The registry program's on-chain errors, by name: the spec's "On-chain program errors" table, the registry
// layout's own errors (docs/registry-program.md § Errors), and one decoder from whatever a client holds after a
// failed send (a JSON-RPC error, a simulation result, a transaction's meta, a TransactionError, a log line) to the
// entry. Pure: no I/O, no Solana library (the shapes are plain JSON).

/** Which program raises the code: the registry itself, or a program it calls (or that a plain send calls). */
export type ProgramErrorSource = 'registry' | 'system' | 'token';

export interface ProgramErrorEntry {
  /** Decimal custom error code; null for the spec's row that has none (reclaim with nothing to reclaim). */
  code: number | null;
  /** `0x…` lowercase, as Solana logs print it; null with `code`. */
  hex: string | null;
  name: string;
  condition: string;
  /** Sending the same transaction again fails the same way: none of these is transient. */
  retryable: false;
  source: ProgramErrorSource;
  /** In the spec's table (true) or the registry layout's own (false). */
  spec: boolean;
}

const hexOf = (code: number) => `0x${code.toString(16)}`;
const entry = <N extends string>(
  code: number | null,
  name: N,
  condition: string,
  source: ProgramErrorSource = 'registry',
  spec = true,
): ProgramErrorEntry & { name: N } => ({
  code,
  hex: code === null ? null : hexOf(code),
  name,
  condition,
  retryable: false,
  source,
  spec,
});

/** The spec's table, row for row (names for the rows the spec describes in words are ours: docs/registry-program.md). */
const SPEC_ROWS = [
  entry(6017, 'HandleIsTokenized', 'offers, auctions, recovery on a tokenized name'),
  entry(147, 'FrozenNft', 'plain send of a listed NFT', 'token'),
  entry(0, 'AccountAlreadyInUse', 'second offer from same wallet on same name', 'system'),
  entry(6040, 'PriceChanged', 'listing or offer amount changed before signing'),
  entry(6034, 'BidTooLow', 'below reserve or under 5 percent over the high bid'),
  entry(6041, 'SellerCannotBid', 'seller bids in own auction'),
  entry(6031, 'AuctionNotEnded', 'settling a running auction'),
  entry(6032, 'AuctionEnded', 'bidding after end'),
  entry(
    6033,
    'AuctionHasBids',
    'cancel, transfer, release_handle, initiate_recovery, complete_recovery while the auction has a bid',
  ),
  entry(6035, 'BadDuration', 'auction duration outside 600 s to 2,592,000 s'),
  entry(6059, 'VoucherNotExpired', 'refund before expiry'),
  entry(
    6109,
    'VoucherClaimNotRecipient',
    'claim_voucher by a non-bound wallet (claim_voucher_tokenized stays open to any signer)',
  ),
  entry(6111, 'AuctionNotStale', 'close_stale_auction while seller still owns the untokenized name'),
  entry(6112, 'VoucherExpiryTooFar', 'gift expiry more than 366 days away'),
  entry(6113, 'UnreceivableCreatorPayout', 'creator payout is a sysvar or executable account'),
  entry(6114, 'NotTreasury', 'set_reserved_claim_approval not signed by the treasury multisig'),
  entry(6115, 'ReservedClaimNotApproved', "claim for a domain not approved for the name's current reservation"),
  entry(6116, 'NamespacePricingMismatch', 'register_under_namespace_v2 pricing account wrong, invalid, or missing'),
  entry(6117, 'NamespacePricingRequiresV2', 'original register_under_namespace on a creator-priced TLD'),
  entry(6118, 'PriceExceedsMax', 'current price above max_price_lamports; only the network fee is charged'),
  entry(6119, 'NamespaceTierBelowFloor', 'price below 1 native unit floor (including 0)'),
  entry(6120, 'NamespaceTierAboveMax', 'price above 100,000,000 native unit ceiling'),
  entry(
    6101,
    'LeaseFirstPaymentTooSmall',
    'first lease-to-own payment below the one-year minimum (0.025 native units at divisor 4)',
  ),
  entry(3012, 'DelegateAccountMissing', 'record-delegate action with no delegate set'),
  entry(null, 'NothingToReclaim', 'reclaim_expired_lease: name registered permanently or paid off; nothing to reclaim'),
] as const;
export const SPEC_PROGRAM_ERRORS: readonly ProgramErrorEntry[] = SPEC_ROWS;

/**
 * The registry layout's own errors (rules the spec does not list: names, PDAs, signers, invoices), numbered from
 * 6500 so that no spec number ever means something else.
 */
export const REGISTRY_LAYOUT_ERRORS = {
  InvalidName: 6500,
  AlreadyRegistered: 6501,
  AccountNotFound: 6502,
  NotAuthority: 6503,
  InvalidPda: 6504,
  AlreadyTokenized: 6505,
  HandleTypeImmutable: 6506,
  InvalidRecord: 6507,
  VerificationFailed: 6508,
  NamespaceInactive: 6509,
  AlreadyExists: 6510,
  InvoiceNotOpen: 6511,
  InvoiceExpired: 6512,
  WrongMint: 6513,
  WrongPayee: 6514,
  InvalidAmount: 6515,
  MissingSigner: 6516,
  NotWritable: 6517,
  InsufficientFunds: 6518,
  InvalidTokenAccount: 6519,
  NotListed: 6520,
  NotTokenized: 6521,
  InvalidState: 6522,
} as const;

const LAYOUT_ENTRIES = Object.entries(REGISTRY_LAYOUT_ERRORS).map(([name, code]) =>
  entry(code, name, 'a rule of the registry layout (docs/registry-program.md § Errors)', 'registry', false),
);

/** Spec names of the catalog, for typed lookups. */
export type SpecProgramErrorName = (typeof SPEC_ROWS)[number]['name'];

/** The spec entry of that name. */
export function specProgramError(name: SpecProgramErrorName): ProgramErrorEntry {
  return SPEC_PROGRAM_ERRORS.find((e) => e.name === name)!;
}

/** The log line the registry writes when reclaim_expired_lease had nothing to reclaim (the transaction succeeds). */
export const NOTHING_TO_RECLAIM_LOG = 'Program log: reclaim_expired_lease: nothing to reclaim';

const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const TOKEN_PROGRAMS = ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PtnBXgPP9iBmJ8'];

/** A decoded failure: a catalog entry, or the generic TransactionRejected carrying the raw code. */
export type DecodedProgramError =
  | (ProgramErrorEntry & { instructionIndex: number | null; program: string | null; detail: string | null })
  | {
      name: 'TransactionRejected';
      /** The raw custom code when there was one; null for a non-custom error (`reason`). */
      code: number | null;
      hex: string | null;
      /** The runtime's error when it is not a custom code, e.g. `InvalidInstructionData`, `BlockhashNotFound`. */
      reason: string | null;
      condition: string;
      retryable: boolean;
      instructionIndex: number | null;
      program: string | null;
      /** The program's own words from its logs (Anchor's `Error Message: …`), when it logged any. */
      detail: string | null;
    };

export interface DecodeOptions {
  /** The registry program id; codes raised by any other program (except system and token) are not looked up. */
  registryProgramId?: string;
}

/** Runtime errors after which the same transaction, rebuilt with a fresh blockhash, may well succeed. */
const RETRYABLE_REASONS = new Set(['BlockhashNotFound', 'AccountInUse', 'ClusterMaintenance']);

/**
 * Decodes a failed registry transaction. Accepts: a JSON-RPC error (`{code: -32002, message, data: {err, logs}}`,
 * or the whole response with `error`), a simulation (`{value: {err, logs}}` or `{err, logs}`), a transaction with
 * meta (`{meta: {err, logMessages}}`), a bare TransactionError (`{"InstructionError":[i,{"Custom":n}]}`), an
 * error object carrying any of these in `data`, `context` or `cause`, a log line or message
 * (`… custom program error: 0x1781`), or the logs alone. Returns null when the input says nothing failed.
 */
export function decodeProgramError(input: unknown, options: DecodeOptions = {}): DecodedProgramError | null {
  const found = collect(input, 0);
  const logs = found.logs ?? [];
  const raiser = failingProgram(logs);
  let decoded: DecodedProgramError | null;
  if (found.err === undefined || found.err === null) {
    if (logs.includes(NOTHING_TO_RECLAIM_LOG)) decoded = withPlace(specProgramError('NothingToReclaim'), null, null);
    else if (found.text !== undefined) decoded = fromText(found.text, raiser, options);
    else if (raiser) decoded = fromCode(raiser.code, null, raiser.program, options);
    else decoded = null;
  } else {
    decoded = fromTransactionError(found.err, raiser, options);
  }
  return decoded && { ...decoded, detail: anchorMessage(logs) };
}

/** The last `… Error Message: <text>.` an Anchor program logged. */
function anchorMessage(logs: readonly string[]): string | null {
  for (let i = logs.length - 1; i >= 0; i--) {
    const m = /^Program log: AnchorError .*Error Message: (.*?)\.?$/.exec(logs[i]!);
    if (m) return m[1]!;
  }
  return null;
}

interface Collected {
  err?: unknown;
  logs?: string[];
  text?: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
/** JSON numbers, or the bigints kit's RPC client turns them into. */
const isInteger = (v: unknown): v is number | bigint => typeof v === 'number' || typeof v === 'bigint';
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** Walks the known wrappers (JSON-RPC response/error, simulation value, meta, error causes) for err, logs and text. */
function collect(input: unknown, depth: number, into: Collected = {}): Collected {
  if (depth > 6) return into;
  if (typeof input === 'string') {
    into.text ??= input;
    return into;
  }
  if (isStrings(input)) {
    into.logs ??= input;
    return into;
  }
  if (!isRecord(input)) return into;
  if (isTransactionError(input)) {
    into.err ??= input;
    return into;
  }
  if ('err' in input && into.err === undefined && (input.err === null || isTransactionError(input.err)))
    into.err = input.err;
  for (const key of ['logs', 'logMessages']) if (isStrings(input[key])) into.logs ??= input[key];
  // kit's SolanaError for a custom instruction error: context {code, index}
  const ctx = input.context;
  if (isRecord(ctx) && isInteger(ctx.code) && isInteger(ctx.index) && into.err === undefined) {
    into.err = { InstructionError: [Number(ctx.index), { Custom: Number(ctx.code) }] };
  }
  for (const key of ['error', 'data', 'value', 'meta', 'result', 'context', 'cause']) {
    if (key in input) collect(input[key], depth + 1, into);
  }
  if (typeof input.message === 'string') into.text ??= input.message;
  return into;
}

function isTransactionError(v: unknown): boolean {
  if (typeof v === 'string') return /^[A-Z][A-Za-z]+$/.test(v);
  if (!isRecord(v)) return false;
  const keys = Object.keys(v);
  return keys.length === 1 && /^[A-Z][A-Za-z]+$/.test(keys[0]!);
}

/** The first `Program X failed: custom program error: 0x…` line: the program that raised the code (CPI or not). */
function failingProgram(logs: readonly string[]): { program: string; code: number } | null {
  for (const line of logs) {
    const m = /^Program (\w+) failed: custom program error: 0x([0-9a-fA-F]+)$/.exec(line);
    if (m) return { program: m[1]!, code: Number.parseInt(m[2]!, 16) };
  }
  return null;
}

function fromTransactionError(
  err: unknown,
  raiser: { program: string; code: number } | null,
  options: DecodeOptions,
): DecodedProgramError {
  if (isRecord(err) && Array.isArray(err.InstructionError)) {
    const [index, inner] = err.InstructionError as [unknown, unknown];
    const at = isInteger(index) ? Number(index) : null;
    if (isRecord(inner) && isInteger(inner.Custom)) {
      const code = Number(inner.Custom);
      const program = raiser && raiser.code === code ? raiser.program : null;
      return fromCode(code, at, program, options);
    }
    return rejected(null, typeof inner === 'string' ? inner : JSON.stringify(inner), at, null);
  }
  return rejected(null, typeof err === 'string' ? err : JSON.stringify(err), null, null);
}

function fromText(
  text: string,
  raiser: { program: string } | null,
  options: DecodeOptions,
): DecodedProgramError | null {
  const custom = /custom program error: (0x[0-9a-fA-F]+|\d+)/.exec(text);
  if (custom) {
    const index = /Instruction (\d+)/.exec(text);
    return fromCode(Number(custom[1]), index ? Number(index[1]) : null, raiser?.program ?? null, options);
  }
  const anchor = /Error Number: (\d+)/.exec(text);
  if (anchor) return fromCode(Number(anchor[1]), null, raiser?.program ?? null, options);
  return null;
}

function fromCode(
  code: number,
  instructionIndex: number | null,
  program: string | null,
  options: DecodeOptions,
): DecodedProgramError {
  const source: ProgramErrorSource | 'other' | null =
    program === null
      ? null
      : program === SYSTEM_PROGRAM
        ? 'system'
        : TOKEN_PROGRAMS.includes(program)
          ? 'token'
          : options.registryProgramId === undefined || program === options.registryProgramId
            ? 'registry'
            : 'other';
  if (source !== 'other') {
    const match = [...SPEC_PROGRAM_ERRORS, ...LAYOUT_ENTRIES].find(
      (e) => e.code === code && (source === null || e.source === source),
    );
    if (match) return withPlace(match, instructionIndex, program);
  }
  return rejected(code, null, instructionIndex, program);
}

function withPlace(e: ProgramErrorEntry, instructionIndex: number | null, program: string | null): DecodedProgramError {
  return { ...e, instructionIndex, program, detail: null };
}

function rejected(
  code: number | null,
  reason: string | null,
  instructionIndex: number | null,
  program: string | null,
): DecodedProgramError {
  return {
    name: 'TransactionRejected',
    code,
    hex: code === null ? null : hexOf(code),
    reason,
    condition:
      code === null
        ? `the runtime refused the transaction (${reason})`
        : `the program refused the transaction with custom error ${hexOf(code)}, which is not in the catalog`,
    retryable: reason !== null && RETRYABLE_REASONS.has(reason),
    instructionIndex,
    program,
    detail: null,
  };
}

import { describe, expect, it } from 'vitest';
import {
  decodeProgramError,
  NOTHING_TO_RECLAIM_LOG,
  REGISTRY_LAYOUT_ERRORS,
  SPEC_PROGRAM_ERRORS,
  specProgramError,
} from './program-errors';

const REGISTRY = 'SigiLRegistry1111111111111111111111111111111';
const SYSTEM = '11111111111111111111111111111111';
const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';

// [decimal, hex, name] — the spec's table with literal codes.
const SPEC_ROWS: Array<[number | null, string | null, string]> = [
  [6017, '0x1781', 'HandleIsTokenized'],
  [147, '0x93', 'FrozenNft'],
  [0, '0x0', 'AccountAlreadyInUse'],
  [6040, '0x1798', 'PriceChanged'],
  [6034, '0x1792', 'BidTooLow'],
  [6041, '0x1799', 'SellerCannotBid'],
  [6031, '0x178f', 'AuctionNotEnded'],
  [6032, '0x1790', 'AuctionEnded'],
  [6033, '0x1791', 'AuctionHasBids'],
  [6035, '0x1793', 'BadDuration'],
  [6059, '0x17ab', 'VoucherNotExpired'],
  [6109, '0x17dd', 'VoucherClaimNotRecipient'],
  [6111, '0x17df', 'AuctionNotStale'],
  [6112, '0x17e0', 'VoucherExpiryTooFar'],
  [6113, '0x17e1', 'UnreceivableCreatorPayout'],
  [6114, '0x17e2', 'NotTreasury'],
  [6115, '0x17e3', 'ReservedClaimNotApproved'],
  [6116, '0x17e4', 'NamespacePricingMismatch'],
  [6117, '0x17e5', 'NamespacePricingRequiresV2'],
  [6118, '0x17e6', 'PriceExceedsMax'],
  [6119, '0x17e7', 'NamespaceTierBelowFloor'],
  [6120, '0x17e8', 'NamespaceTierAboveMax'],
  [6101, '0x17d5', 'LeaseFirstPaymentTooSmall'],
  [3012, '0xbc4', 'DelegateAccountMissing'],
  [null, null, 'NothingToReclaim'],
];

describe('the catalog', () => {
  it('has every spec row, in order, with decimal and hex codes, never retryable', () => {
    expect(SPEC_PROGRAM_ERRORS.map((e) => [e.code, e.hex, e.name])).toEqual(SPEC_ROWS);
    expect(SPEC_PROGRAM_ERRORS.every((e) => e.retryable === false && e.spec)).toBe(true);
    expect(specProgramError('AuctionHasBids').condition).toBe(
      'cancel, transfer, release_handle, initiate_recovery, complete_recovery while the auction has a bid',
    );
  });

  it("keeps the layout's own codes out of every number the spec uses", () => {
    const spec = new Set(SPEC_PROGRAM_ERRORS.map((e) => e.code));
    const own = Object.values(REGISTRY_LAYOUT_ERRORS);
    expect(own.filter((c) => spec.has(c))).toEqual([]);
    expect(Math.min(...own)).toBe(6500);
    expect(new Set(own).size).toBe(own.length);
  });
});

describe('decodeProgramError', () => {
  it.each(SPEC_ROWS.filter((r) => r[0] !== null && r[0] !== 0 && r[0] !== 147))(
    'meta.err Custom %s (%s) → %s',
    (code, _hex, name) => {
      const got = decodeProgramError({ meta: { err: { InstructionError: [1, { Custom: code }] }, logMessages: [] } });
      expect(got).toMatchObject({ name, code, instructionIndex: 1, retryable: false });
    },
  );

  it('reads the sendTransaction preflight error (JSON-RPC -32002) with its logs', () => {
    const response = {
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32002,
        message: 'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1781',
        data: {
          err: { InstructionError: [0, { Custom: 6017 }] },
          logs: [`Program ${REGISTRY} invoke [1]`, `Program ${REGISTRY} failed: custom program error: 0x1781`],
        },
      },
    };
    expect(decodeProgramError(response, { registryProgramId: REGISTRY })).toEqual({
      code: 6017,
      hex: '0x1781',
      name: 'HandleIsTokenized',
      condition: 'offers, auctions, recovery on a tokenized name',
      retryable: false,
      source: 'registry',
      spec: true,
      instructionIndex: 0,
      program: REGISTRY,
      detail: null,
    });
  });

  it('reads a simulateTransaction result and a bare TransactionError', () => {
    const sim = { context: { slot: 9 }, value: { err: { InstructionError: [2, { Custom: 6034 }] }, logs: [] } };
    expect(decodeProgramError(sim)).toMatchObject({ name: 'BidTooLow', instructionIndex: 2 });
    expect(decodeProgramError({ InstructionError: [0, { Custom: 6118 }] })).toMatchObject({ name: 'PriceExceedsMax' });
    expect(decodeProgramError({ value: { err: null, logs: [] } })).toBeNull();
  });

  it('reads hex strings in log lines and messages', () => {
    expect(decodeProgramError(`Program ${REGISTRY} failed: custom program error: 0x17dd`)).toMatchObject({
      name: 'VoucherClaimNotRecipient',
      code: 6109,
    });
    expect(decodeProgramError(new Error('Error processing Instruction 3: custom program error: 0x17e4'))).toMatchObject(
      { name: 'NamespacePricingMismatch', instructionIndex: 3 },
    );
    expect(
      decodeProgramError(
        'Program log: AnchorError caused by account: delegate. Error Code: AccountNotInitialized. Error Number: 3012.',
      ),
    ).toMatchObject({ name: 'DelegateAccountMissing', code: 3012, hex: '0xbc4' });
  });

  it('takes the bigints kit turns JSON numbers into', () => {
    expect(decodeProgramError({ err: { InstructionError: [1n, { Custom: 6041n }] }, logs: [] })).toMatchObject({
      name: 'SellerCannotBid',
      instructionIndex: 1,
    });
  });

  it("reads kit's custom-instruction-error context", () => {
    const kitError = { context: { __code: 4615026, code: 6112, index: 0 }, message: 'custom program error' };
    expect(decodeProgramError(kitError)).toMatchObject({ name: 'VoucherExpiryTooFar', instructionIndex: 0 });
  });

  it('0x0 from the system program is the second offer; 0x93 from the token program is the frozen NFT', () => {
    const second = {
      err: { InstructionError: [0, { Custom: 0 }] },
      logs: [
        `Program ${REGISTRY} invoke [1]`,
        `Program ${SYSTEM} invoke [2]`,
        'Create Account: account Address { address: X, base: None } already in use',
        `Program ${SYSTEM} failed: custom program error: 0x0`,
        `Program ${REGISTRY} failed: custom program error: 0x0`,
      ],
    };
    expect(decodeProgramError(second, { registryProgramId: REGISTRY })).toMatchObject({
      name: 'AccountAlreadyInUse',
      code: 0,
      source: 'system',
      program: SYSTEM,
    });
    const frozen = {
      err: { InstructionError: [0, { Custom: 147 }] },
      logs: [`Program ${TOKEN} invoke [1]`, `Program ${TOKEN} failed: custom program error: 0x93`],
    };
    expect(decodeProgramError(frozen, { registryProgramId: REGISTRY })).toMatchObject({
      name: 'FrozenNft',
      hex: '0x93',
      source: 'token',
    });
    // The same 0x0 raised by the registry itself is not the system program's error.
    const own = {
      err: { InstructionError: [0, { Custom: 0 }] },
      logs: [`Program ${REGISTRY} failed: custom program error: 0x0`],
    };
    expect(decodeProgramError(own, { registryProgramId: REGISTRY })).toMatchObject({
      name: 'TransactionRejected',
      code: 0,
    });
  });

  it('unknown codes → TransactionRejected with the raw code; other runtime errors keep their reason', () => {
    expect(decodeProgramError({ InstructionError: [1, { Custom: 7777 }] })).toEqual({
      name: 'TransactionRejected',
      code: 7777,
      hex: '0x1e61',
      reason: null,
      condition: 'the program refused the transaction with custom error 0x1e61, which is not in the catalog',
      retryable: false,
      instructionIndex: 1,
      program: null,
      detail: null,
    });
    const foreign = {
      err: { InstructionError: [0, { Custom: 6017 }] },
      logs: ['Program Other111111111111111111111111111111111 failed: custom program error: 0x1781'],
    };
    expect(decodeProgramError(foreign, { registryProgramId: REGISTRY })).toMatchObject({
      name: 'TransactionRejected',
      code: 6017,
    });
    expect(decodeProgramError({ InstructionError: [0, 'InvalidInstructionData'] })).toMatchObject({
      name: 'TransactionRejected',
      code: null,
      reason: 'InvalidInstructionData',
      retryable: false,
    });
    expect(decodeProgramError({ err: 'BlockhashNotFound', logs: [] })).toMatchObject({
      reason: 'BlockhashNotFound',
      retryable: true,
    });
  });

  it("carries the program's own words from an Anchor log line", () => {
    const logs = [
      `Program ${REGISTRY} invoke [1]`,
      'Program log: AnchorError occurred. Error Code: AuctionHasBids. Error Number: 6033. Error Message: the auction of this handle has a bid.',
      `Program ${REGISTRY} failed: custom program error: 0x1791`,
    ];
    expect(decodeProgramError({ err: { InstructionError: [0, { Custom: 6033 }] }, logs })).toMatchObject({
      name: 'AuctionHasBids',
      detail: 'the auction of this handle has a bid',
    });
  });

  it("names the layout's own codes and the nothing-to-reclaim success", () => {
    expect(decodeProgramError({ InstructionError: [0, { Custom: 6503 }] })).toMatchObject({
      name: 'NotAuthority',
      spec: false,
    });
    expect(decodeProgramError({ err: null, logs: [NOTHING_TO_RECLAIM_LOG] })).toMatchObject({
      name: 'NothingToReclaim',
      code: null,
    });
  });
});

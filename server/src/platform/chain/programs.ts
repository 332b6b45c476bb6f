// The ids of the Solana programs the service reads, checks or builds instructions for, in one place: every server
// module (the local chain included) takes them from here. Where the program's own kit client exports its id, that
// export is the source; the others are spelled here, once.
import { address } from '@solana/kit';

/** Owns wallets and plain lamport accounts; nonce advances and SOL transfers are its instructions. */
export { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';

/** SPL Token: the handle NFTs, the wrapped-native x402 asset, and payments in classic mints. */
export { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';

/** Token-2022: payments in its mints. Spelled here: `@solana-program/token-2022` does not install beside kit 8. */
export const TOKEN_2022_PROGRAM_ADDRESS = address('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');

/** Compute budget: an x402 payment must set its limit and price with it; a Connect memo transaction must not use it. */
export { COMPUTE_BUDGET_PROGRAM_ADDRESS } from '@solana-program/compute-budget';

/**
 * SPL Memo v2/v3: the memo program every validator and litesvm load (so the local chain executes it), the one
 * Connect memo transactions are built with. `@solana-program/memo` names it LEGACY_MEMO_PROGRAM_ADDRESS_V3 and
 * defaults its builders to the pinocchio id below, so builders get this address passed explicitly.
 */
export const SPL_MEMO_PROGRAM_ADDRESS = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

/** The deprecated v1 memo program: still executes on clusters, so a payment's memo may come from it. */
export const MEMO_V1_PROGRAM_ADDRESS = address('Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo');

/** The pinocchio memo program, `@solana-program/memo` ≥ 0.15's default: wallets building with its defaults name it. */
export const PINOCCHIO_MEMO_PROGRAM_ADDRESS = address('Memo4c2pN8afCj432Lb7RMVKi9PbQnnW7ewFFaV3oAH');

/** The secp256k1 precompile: its instruction carries the signature that proves an ETH/BTC address record. */
export const SECP256K1_PROGRAM_ADDRESS = address('KeccakSecp256k11111111111111111111111111111');

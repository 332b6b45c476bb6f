// SPL Token / Token-2022 account reading for the RPC (token balances in transaction meta, token RPC methods).
// Layouts come from @solana-program/token's generated codecs; Token-2022 shares the base layout and appends
// extensions after byte 165, with an account-type byte at 165 (1 = mint, 2 = token account).
import type { Address } from '@solana/kit';
import { getMintDecoder, getTokenDecoder } from '@solana-program/token';
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from '../platform/chain/programs';
import type { AccountSnapshot } from './svm-reads';

export const TOKEN_PROGRAMS: readonly Address[] = [TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS];

const MINT_SIZE = 82;
const TOKEN_ACCOUNT_SIZE = 165;
const ACCOUNT_TYPE_MINT = 1;
const ACCOUNT_TYPE_TOKEN = 2;

const tokenDecoder = getTokenDecoder();
const mintDecoder = getMintDecoder();

export interface TokenAccountInfo {
  mint: Address;
  owner: Address;
  amount: bigint;
  programId: Address;
}

export function isTokenProgram(owner: Address): boolean {
  return TOKEN_PROGRAMS.includes(owner);
}

export function readTokenAccount(account: AccountSnapshot | null): TokenAccountInfo | null {
  if (!account || !isTokenProgram(account.owner)) return null;
  const { data } = account;
  const isTokenAccount =
    data.length === TOKEN_ACCOUNT_SIZE ||
    (account.owner === TOKEN_2022_PROGRAM_ADDRESS &&
      data.length > TOKEN_ACCOUNT_SIZE &&
      data[TOKEN_ACCOUNT_SIZE] === ACCOUNT_TYPE_TOKEN);
  if (!isTokenAccount) return null;
  try {
    const token = tokenDecoder.decode(data.subarray(0, TOKEN_ACCOUNT_SIZE));
    return { mint: token.mint, owner: token.owner, amount: token.amount, programId: account.owner };
  } catch {
    return null;
  }
}

export function readMintDecimals(account: AccountSnapshot | null): number | null {
  if (!account || !isTokenProgram(account.owner)) return null;
  const { data } = account;
  const isMint =
    data.length === MINT_SIZE ||
    (account.owner === TOKEN_2022_PROGRAM_ADDRESS &&
      data.length > TOKEN_ACCOUNT_SIZE &&
      data[TOKEN_ACCOUNT_SIZE] === ACCOUNT_TYPE_MINT);
  if (!isMint) return null;
  try {
    return mintDecoder.decode(data.subarray(0, MINT_SIZE)).decimals;
  } catch {
    return null;
  }
}

/** The RPC's UiTokenAmount for a raw amount. */
export function uiTokenAmount(amount: bigint, decimals: number) {
  const digits = amount.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = decimals > 0 ? digits.slice(digits.length - decimals).replace(/0+$/, '') : '';
  const uiAmountString = fraction ? `${whole}.${fraction}` : whole;
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

// Pure decoding of a finalized transaction into the payment facts pay events are built from: native transfers,
// SPL Token / Token-2022 transfers (recipient = the token account's owner, from the transaction's token
// balances), and the registry program's invoice instructions. No I/O.
import type { Address } from '@solana/kit';
import {
  MEMO_V1_PROGRAM_ADDRESS,
  SPL_MEMO_PROGRAM_ADDRESS,
  SYSTEM_PROGRAM_ADDRESS,
  TOKEN_2022_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
} from '../../platform/chain/programs';
import {
  decodeRegistryInstruction,
  RegistryDecodeError,
  type RegistryInstruction,
} from '../../platform/chain/registry';
import type { ChainTransaction, TransactionInstruction } from '../../platform/chain/types';

const MEMO_PROGRAMS: ReadonlySet<Address> = new Set([SPL_MEMO_PROGRAM_ADDRESS, MEMO_V1_PROGRAM_ADDRESS]);

export interface Position {
  ixIndex: number;
  /** -1 top level, else the position among the top-level instruction's inner instructions. */
  innerIndex: number;
}

export interface TransferFact extends Position {
  kind: 'transfer';
  payer: Address;
  recipient: Address;
  recipientTokenAccount: Address | null;
  asset: 'native' | 'spl';
  mint: Address | null;
  amount: bigint;
  fee: bigint | null;
  net: bigint | null;
  references: Address[];
}

export interface InvoicePaidFact extends Position {
  kind: 'invoice.paid';
  invoice: Address;
  payer: Address;
  payee: Address;
  recipientTokenAccount: Address | null;
  mint: Address | null;
  /** What moved to the payee (sum of the instruction's CPI transfers to it). */
  amount: bigint;
  /** Token payments: the payee token account's balance change; native: null (fees blur the lamport delta). */
  received: bigint | null;
}

export interface InvoiceCreatedFact extends Position {
  kind: 'invoice.created';
  invoice: Address;
  payee: Address;
  actor: Address;
  mint: Address | null;
  amount: bigint;
  expiresAt: bigint;
  bound: boolean;
  handleAccount: Address | null;
}

export interface InvoiceChangeFact extends Position {
  kind: 'invoice.cancelled' | 'invoice.closed';
  invoice: Address;
  payee: Address;
  actor: Address;
}

export type PaymentFact = TransferFact | InvoicePaidFact | InvoiceCreatedFact | InvoiceChangeFact;

const u64 = (data: Uint8Array, offset: number) =>
  new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(offset, true);
const u32 = (data: Uint8Array, offset: number) =>
  new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(offset, true);

interface RawTransfer {
  source: Address;
  destination: Address;
  authority: Address;
  amount: bigint;
  /** Token-2022 TransferCheckedWithFee: the fee the instruction declares. */
  declaredFee: bigint | null;
  references: Address[];
  token: boolean;
}

/** A native or token transfer instruction, or null. Extra non-signer accounts after the layout are references. */
export function decodeTransfer(ix: TransactionInstruction, signers: ReadonlySet<Address>): RawTransfer | null {
  const { data, accounts } = ix;
  const extras = (from: number) => accounts.slice(from).filter((a) => !signers.has(a));
  if (ix.programId === SYSTEM_PROGRAM_ADDRESS) {
    if (data.length === 12 && u32(data, 0) === 2 && accounts.length >= 2) {
      return {
        source: accounts[0]!,
        destination: accounts[1]!,
        authority: accounts[0]!,
        amount: u64(data, 4),
        declaredFee: null,
        references: extras(2),
        token: false,
      };
    }
    // TransferWithSeed: from (derived), base, to; lamports then seed and owner follow.
    if (data.length >= 12 && u32(data, 0) === 11 && accounts.length >= 3) {
      return {
        source: accounts[0]!,
        destination: accounts[2]!,
        authority: accounts[1]!,
        amount: u64(data, 4),
        declaredFee: null,
        references: extras(3),
        token: false,
      };
    }
    return null;
  }
  if (ix.programId !== TOKEN_PROGRAM_ADDRESS && ix.programId !== TOKEN_2022_PROGRAM_ADDRESS) return null;
  if (data[0] === 3 && data.length === 9 && accounts.length >= 3) {
    return {
      source: accounts[0]!,
      destination: accounts[1]!,
      authority: accounts[2]!,
      amount: u64(data, 1),
      declaredFee: null,
      references: extras(3),
      token: true,
    };
  }
  if (data[0] === 12 && data.length === 10 && accounts.length >= 4) {
    return {
      source: accounts[0]!,
      destination: accounts[2]!,
      authority: accounts[3]!,
      amount: u64(data, 1),
      declaredFee: null,
      references: extras(4),
      token: true,
    };
  }
  if (
    ix.programId === TOKEN_2022_PROGRAM_ADDRESS &&
    data[0] === 26 &&
    data[1] === 1 &&
    data.length === 19 &&
    accounts.length >= 4
  ) {
    return {
      source: accounts[0]!,
      destination: accounts[2]!,
      authority: accounts[3]!,
      amount: u64(data, 2),
      declaredFee: u64(data, 11),
      references: extras(4),
      token: true,
    };
  }
  return null;
}

/** The memo text(s) of the transaction, joined by a line feed; '' when none. */
export function transactionMemo(tx: ChainTransaction): string {
  const texts: string[] = [];
  for (const ix of tx.instructions) {
    for (const one of [ix, ...ix.inner]) {
      if (MEMO_PROGRAMS.has(one.programId)) texts.push(new TextDecoder('utf-8', { fatal: false }).decode(one.data));
    }
  }
  return texts.join('\n');
}

/** A transaction's token balances as the fact builders read them. */
interface TxBalances {
  tx: ChainTransaction;
  /** The token balance change of an account, or null when the transaction does not show it. */
  delta(account: Address): bigint | null;
  /** How many transfers credit each destination: a balance delta is only one transfer's net when it is alone. */
  credits: Map<Address, number>;
}

const tokenAt = (account: Address, list: ChainTransaction['postTokenBalances']) =>
  list.find((b) => b.account === account);

function balancesOf(tx: ChainTransaction, signers: Set<Address>): TxBalances {
  const delta = (account: Address) => {
    const post = tokenAt(account, tx.postTokenBalances)?.amount;
    if (post === undefined) return null;
    return post - (tokenAt(account, tx.preTokenBalances)?.amount ?? 0n);
  };
  const credits = new Map<Address, number>();
  for (const ix of tx.instructions) {
    for (const one of [ix, ...ix.inner]) {
      const t = decodeTransfer(one, signers);
      if (t) credits.set(t.destination, (credits.get(t.destination) ?? 0) + 1);
    }
  }
  return { tx, delta, credits };
}

/** One transfer as a payment fact; null when the destination's owner is not knowable from this transaction. */
function transferFact(t: RawTransfer, position: Position, balances: TxBalances): TransferFact | null {
  const { delta, credits } = balances;
  if (!t.token) {
    return {
      kind: 'transfer',
      ...position,
      payer: t.source,
      recipient: t.destination,
      recipientTokenAccount: null,
      asset: 'native',
      mint: null,
      amount: t.amount,
      fee: 0n,
      net: t.amount,
      references: t.references,
    };
  }
  const destination =
    tokenAt(t.destination, balances.tx.postTokenBalances) ?? tokenAt(t.destination, balances.tx.preTokenBalances);
  if (!destination?.owner) return null; // the owner is not knowable from this transaction
  const source = tokenAt(t.source, balances.tx.preTokenBalances) ?? tokenAt(t.source, balances.tx.postTokenBalances);
  let fee: bigint | null = null;
  let net: bigint | null = null;
  if (t.declaredFee !== null) {
    fee = t.declaredFee;
    net = t.amount - t.declaredFee;
  } else if (destination.programId === TOKEN_PROGRAM_ADDRESS) {
    fee = 0n;
    net = t.amount;
  } else if (credits.get(t.destination) === 1) {
    // Token-2022: a transfer-fee mint withholds the fee in the destination; the balance change is what arrived.
    net = delta(t.destination);
    fee = net === null ? null : t.amount - net;
  }
  return {
    kind: 'transfer',
    ...position,
    payer: source?.owner ?? t.authority,
    recipient: destination.owner,
    recipientTokenAccount: t.destination,
    asset: 'spl',
    mint: destination.mint,
    amount: t.amount,
    fee,
    net,
    references: t.references,
  };
}

/** Every payment fact of a successful transaction, in instruction order. */
export function decodePaymentFacts(tx: ChainTransaction, programId: Address): PaymentFact[] {
  if (tx.err !== null) return [];
  const signers = new Set(tx.signers);
  const balances = balancesOf(tx, signers);
  const delta = balances.delta;
  const facts: PaymentFact[] = [];

  tx.instructions.forEach((ix, ixIndex) => {
    if (ix.programId === programId) {
      const decoded = decodeRegistry(ix, programId);
      if (decoded) {
        const fact = invoiceFact(decoded, ix, { ixIndex, innerIndex: -1 }, signers, delta);
        if (fact) facts.push(fact);
      }
      return; // the program's own CPI transfers are part of its instruction (pay_invoice), never a second payment
    }
    const top = decodeTransfer(ix, signers);
    if (top) {
      const fact = transferFact(top, { ixIndex, innerIndex: -1 }, balances);
      if (fact) facts.push(fact);
    }
    ix.inner.forEach((inner, innerIndex) => {
      if (inner.programId === programId) {
        const decoded = decodeRegistry(inner, programId);
        if (decoded) {
          const fact = invoiceFact(
            decoded,
            inner,
            { ixIndex, innerIndex },
            signers,
            delta,
            ix.inner.slice(innerIndex + 1),
          );
          if (fact) facts.push(fact);
        }
        return;
      }
      // A transfer made by the registry program inside pay_invoice (when pay_invoice itself was a CPI) was
      // already counted with it: skip transfers that directly follow a pay_invoice inner instruction.
      const t = decodeTransfer(inner, signers);
      if (t && !followsPayInvoice(ix.inner, innerIndex, programId)) {
        const fact = transferFact(t, { ixIndex, innerIndex }, balances);
        if (fact) facts.push(fact);
      }
    });
  });
  return facts;
}

function followsPayInvoice(inner: TransactionInstruction[], index: number, programId: Address): boolean {
  const previous = inner[index - 1];
  if (!previous || previous.programId !== programId) return false;
  return decodeRegistry(previous, programId)?.name === 'pay_invoice';
}

function decodeRegistry(ix: TransactionInstruction, programId: Address): RegistryInstruction | null {
  try {
    return decodeRegistryInstruction(ix.data, ix.accounts, programId);
  } catch (err) {
    if (err instanceof RegistryDecodeError) return null;
    throw err;
  }
}

function invoiceFact(
  decoded: RegistryInstruction,
  ix: TransactionInstruction & { inner?: TransactionInstruction[] },
  position: Position,
  signers: ReadonlySet<Address>,
  delta: (account: Address) => bigint | null,
  following: TransactionInstruction[] = [],
): PaymentFact | null {
  switch (decoded.name) {
    case 'create_invoice':
      return {
        kind: 'invoice.created',
        ...position,
        invoice: decoded.accounts.invoice,
        payee: decoded.accounts.payee,
        actor: decoded.accounts.payee,
        mint: decoded.accounts.mint,
        amount: decoded.args.amount,
        expiresAt: BigInt(decoded.args.expiresAt),
        bound: decoded.args.bound,
        handleAccount: decoded.accounts.handle,
      };
    case 'cancel_invoice':
    case 'close_invoice':
      return {
        kind: decoded.name === 'cancel_invoice' ? 'invoice.cancelled' : 'invoice.closed',
        ...position,
        invoice: decoded.accounts.invoice,
        payee: decoded.accounts.payee,
        actor: decoded.accounts.payee,
      };
    case 'pay_invoice': {
      const a = decoded.accounts;
      const tokenAccount = a.kind === 'token' ? a.payeeTokenAccount : null;
      // The CPI transfers the program made for this instruction: its inner list (top level), or what follows it.
      const cpis = ix.inner ?? following;
      let amount = 0n;
      for (const cpi of cpis) {
        const t = decodeTransfer(cpi, signers);
        if (t && t.destination === (tokenAccount ?? a.payee)) amount += t.amount;
      }
      return {
        kind: 'invoice.paid',
        ...position,
        invoice: a.invoice,
        payer: a.payer,
        payee: a.payee,
        recipientTokenAccount: tokenAccount,
        mint: a.kind === 'token' ? a.mint : null,
        amount,
        received: tokenAccount ? delta(tokenAccount) : null,
      };
    }
    default:
      return null;
  }
}

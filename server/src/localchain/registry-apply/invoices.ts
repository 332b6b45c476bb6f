// Invoices: created by the payee (optionally bound to a handle it controls), paid once in native or token
// units through a real CPI, cancelled while open, closed to reclaim the rent.
import { getTransferSolInstruction } from '@solana-program/system';
import { getTransferCheckedInstruction } from '@solana-program/token';
import { decodeInvoice, encodeInvoice, findInvoicePda, INVOICE_STATUS } from '../../platform/chain/registry';
import { expectPda, fail, signerStub } from '../emulator-run';
import { restoreAccount } from '../ledger';
import { readMintDecimals, readTokenAccount } from '../tokens';
import { byteLength, type RegistryRows } from './rows';

const MAX_MEMO_BYTES = 256;

export const invoiceRows = {
  create_invoice: async (emu, run, ix) => {
    const { programId } = emu;
    const { payee, invoice, mint, handle } = ix.accounts;
    const { id, amount, expiresAt, memo, bound } = ix.args;
    run.requireSigner(payee, 'payee');
    if (amount <= 0n) throw fail('InvalidAmount', 'amount must be positive');
    if (byteLength(memo) > MAX_MEMO_BYTES) throw fail('InvalidRecord', 'memo is longer than 256 bytes');
    if (bound !== (handle !== null)) throw fail('InvalidRecord', '`bound` must match the handle account');
    if (mint !== null && readMintDecimals(run.read(mint)) === null) throw fail('WrongMint', `${mint} is not a mint`);
    if (handle !== null) {
      const data = run.loadHandle(handle);
      if ((await run.authorityOf(data)) !== payee) throw fail('NotAuthority', `payee does not control @${data.name}`);
    }
    const bump = await expectPda(invoice, findInvoicePda(programId, payee, id), 'invoice');
    if (run.read(invoice)) throw fail('AlreadyExists', `invoice ${id} exists`);
    run.writeProgramAccount(
      invoice,
      encodeInvoice({
        payee,
        paidBy: null,
        mint,
        amount,
        fee: 0n,
        expiresAt,
        status: INVOICE_STATUS.open,
        boundHandle: handle,
        createdAt: run.now,
        createdSlot: run.slot,
        paidAt: 0,
        id,
        bump,
        memo,
      }),
      payee,
    );
  },
  pay_invoice: async (_emu, run, ix) => {
    const feePayer = run.tx.accountKeys[0]!;
    const accounts = ix.accounts;
    run.requireSigner(accounts.payer, 'payer');
    const data = run.load(accounts.invoice, decodeInvoice, 'invoice');
    if (data.status !== INVOICE_STATUS.open)
      throw fail('InvoiceNotOpen', `invoice is ${data.status === 1 ? 'paid' : 'cancelled'}`);
    if (data.expiresAt > 0 && run.now >= data.expiresAt) throw fail('InvoiceExpired', 'invoice has expired');
    if (accounts.payee !== data.payee) throw fail('WrongPayee', `payee must be ${data.payee}`);
    if (accounts.kind === 'native') {
      if (data.mint !== null) throw fail('WrongMint', `invoice is payable in ${data.mint}`);
      run.requireWritable(accounts.payee, 'payee');
      run.cpi([
        getTransferSolInstruction({
          source: signerStub(accounts.payer),
          destination: accounts.payee,
          amount: data.amount,
        }),
      ]);
    } else {
      if (data.mint !== accounts.mint) throw fail('WrongMint', `invoice is payable in ${data.mint ?? 'native'}`);
      const payeeToken = readTokenAccount(run.read(accounts.payeeTokenAccount));
      if (!payeeToken || payeeToken.owner !== data.payee || payeeToken.mint !== data.mint) {
        throw fail('InvalidTokenAccount', "payee token account must be the payee's account for the invoice mint");
      }
      const decimals = readMintDecimals(run.read(accounts.mint)) ?? 0;
      run.cpi([
        getTransferCheckedInstruction(
          {
            source: accounts.payerTokenAccount,
            mint: accounts.mint,
            destination: accounts.payeeTokenAccount,
            authority: signerStub(accounts.payer),
            amount: data.amount,
            decimals,
          },
          { programAddress: accounts.tokenProgram },
        ),
      ]);
    }
    run.writeProgramAccount(
      accounts.invoice,
      encodeInvoice({ ...data, status: INVOICE_STATUS.paid, paidBy: accounts.payer, paidAt: run.now }),
      feePayer,
    );
  },
  cancel_invoice: async (_emu, run, ix) => {
    const feePayer = run.tx.accountKeys[0]!;
    const { payee, invoice } = ix.accounts;
    run.requireSigner(payee, 'payee');
    const data = run.load(invoice, decodeInvoice, 'invoice');
    if (data.payee !== payee) throw fail('WrongPayee', 'only the payee may cancel');
    if (data.status !== INVOICE_STATUS.open) throw fail('InvoiceNotOpen', 'only open invoices can be cancelled');
    run.writeProgramAccount(invoice, encodeInvoice({ ...data, status: INVOICE_STATUS.cancelled }), feePayer);
  },
  close_invoice: async (emu, run, ix) => {
    const { payee, invoice } = ix.accounts;
    run.requireSigner(payee, 'payee');
    run.requireWritable(payee, 'payee');
    run.requireWritable(invoice, 'invoice');
    const data = run.load(invoice, decodeInvoice, 'invoice');
    if (data.payee !== payee) throw fail('WrongPayee', 'only the payee may close');
    const account = run.read(invoice)!;
    const dest = run.read(payee)!;
    restoreAccount(emu.svm, payee, { ...dest, lamports: dest.lamports + account.lamports });
    restoreAccount(emu.svm, invoice, null);
  },
} satisfies RegistryRows;

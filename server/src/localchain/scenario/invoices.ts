// Scenario step: alice's invoices, one per state (open native, paid native, cancelled, open USDX, paid USDX).
import type { Address } from '@solana/kit';
import {
  findInvoicePda,
  getCancelInvoiceInstruction,
  getCreateInvoiceInstruction,
  getPayInvoiceInstruction,
} from '../../platform/chain/registry';
import { ata, exec, handleAccount, LAMPORTS, now, type Seed } from './seed';

interface InvoiceSpec {
  id: bigint;
  amount: bigint;
  mint: Address | null;
  /** Bound to @alice. */
  bound: boolean;
  memo: string;
  description: string;
}

async function createInvoice(s: Seed, key: string, spec: InvoiceSpec): Promise<Address> {
  const { programId, w } = s;
  const { id, amount, mint, bound, memo, description } = spec;
  const [invoice] = await findInvoicePda(programId, w.alice.address, id);
  await exec(s, w.alice, [
    getCreateInvoiceInstruction({
      programId,
      payee: w.alice.address,
      invoice,
      mint,
      handle: bound ? await handleAccount(s, 'alice') : null,
      id,
      amount,
      expiresAt: now(s) + 30 * 86_400,
      memo,
    }),
  ]);
  s.seeded.invoices[key] = { description, account: invoice, payee: 'alice', id: Number(id), status: 'open' };
  return invoice;
}

export async function invoices(s: Seed): Promise<void> {
  const { programId, w } = s;
  const usdx = s.mintSigners.usdx.address;
  await createInvoice(s, 'alice-1', {
    id: 1n,
    amount: LAMPORTS / 4n,
    mint: null,
    bound: true,
    memo: 'Logo design',
    description: 'open, 0.25 native, bound to @alice',
  });
  const paid = await createInvoice(s, 'alice-2', {
    id: 2n,
    amount: LAMPORTS / 10n,
    mint: null,
    bound: true,
    memo: 'Consulting call',
    description: 'paid by payer1 in native tokens',
  });
  await exec(s, w.payer1, [
    getPayInvoiceInstruction({
      programId,
      kind: 'native',
      payer: w.payer1.address,
      invoice: paid,
      payee: w.alice.address,
    }),
  ]);
  s.seeded.invoices['alice-2']!.status = 'paid';
  const cancelled = await createInvoice(s, 'alice-3', {
    id: 3n,
    amount: LAMPORTS,
    mint: null,
    bound: false,
    memo: 'Cancelled order',
    description: 'cancelled by alice',
  });
  await exec(s, w.alice, [getCancelInvoiceInstruction({ programId, payee: w.alice.address, invoice: cancelled })]);
  s.seeded.invoices['alice-3']!.status = 'cancelled';
  await createInvoice(s, 'alice-4', {
    id: 4n,
    amount: 12_500_000n,
    mint: usdx,
    bound: false,
    memo: 'Sticker pack',
    description: 'open, 12.5 USDX',
  });
  const paidToken = await createInvoice(s, 'alice-5', {
    id: 5n,
    amount: 7_000_000n,
    mint: usdx,
    bound: true,
    memo: 'T-shirt',
    description: 'paid by payer2 in USDX',
  });
  await exec(s, w.payer2, [
    getPayInvoiceInstruction({
      programId,
      kind: 'token',
      payer: w.payer2.address,
      invoice: paidToken,
      payee: w.alice.address,
      payerTokenAccount: await ata(w.payer2.address, usdx),
      payeeTokenAccount: await ata(w.alice.address, usdx),
      mint: usdx,
    }),
  ]);
  s.seeded.invoices['alice-5']!.status = 'paid';
}

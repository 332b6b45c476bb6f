// Lease-to-own: the first instalment registers the handle to the lessee, instalments extend what is paid
// through, and a lapsed lease is reclaimed (the handle released).
import { normalizeName } from '@sigil/contract/names';
import { NOTHING_TO_RECLAIM_LOG } from '@sigil/contract/program-errors';
import {
  decodeHandle,
  encodeHandle,
  encodeMarketAccount,
  findHandlePda,
  LEASE_MIN_PAYMENT_LAMPORTS,
  LEASE_YEAR_PRICE_LAMPORTS,
  MARKET_PDAS,
} from '../../platform/chain/registry';
import { ZERO_ADDRESS } from '../../platform/chain/trust-rules';
import { expectPda, fail } from '../emulator-run';
import { closeAccount, paidThrough, readMarket, requireMarket, write, type MarketRows } from './accounts';

export const leaseRows = {
  start_lease: async (emu, run, ix) => {
    const { programId } = emu;
    const { lessee, handle, lease, treasury } = ix.accounts;
    const { name, firstPayment } = ix.args;
    run.requireSigner(lessee, 'lessee');
    if (normalizeName(name).name !== name) throw fail('InvalidName', `"${name}" is not a normalized handle`);
    const handleBump = await expectPda(handle, findHandlePda(programId, name), 'handle');
    const bump = await expectPda(lease, MARKET_PDAS.lease(programId, handle), 'lease');
    await expectPda(treasury, MARKET_PDAS.treasury(programId), 'treasury');
    if (firstPayment < LEASE_MIN_PAYMENT_LAMPORTS)
      throw fail('LeaseFirstPaymentTooSmall', `the first payment is at least ${LEASE_MIN_PAYMENT_LAMPORTS} lamports`);
    if (firstPayment > LEASE_YEAR_PRICE_LAMPORTS) throw fail('InvalidAmount', 'more than the price');
    const existing = run.read(handle);
    let registrationEpoch = 1n;
    if (existing) {
      const previous = decodeHandle(handle, existing.data);
      if (previous.owner !== ZERO_ADDRESS) throw fail('AlreadyRegistered', `@${name} is registered`);
      registrationEpoch = previous.registrationEpoch + 1n;
    }
    run.moveLamports(lessee, treasury, firstPayment);
    write(
      run,
      handle,
      encodeHandle({
        owner: lessee,
        handleType: 0,
        tokenized: false,
        mint: null,
        registrationEpoch,
        registeredAt: run.now,
        registeredSlot: run.slot,
        bump: handleBump,
        name,
      }),
    );
    write(
      run,
      lease,
      encodeMarketAccount('Lease', {
        handle,
        lessee,
        totalPrice: LEASE_YEAR_PRICE_LAMPORTS,
        paid: firstPayment,
        startedAt: run.now,
        paidThrough: paidThrough(run.now, firstPayment),
        bump,
      }),
    );
  },
  pay_lease: async (emu, run, ix) => {
    const { programId } = emu;
    const { lessee, lease, treasury } = ix.accounts;
    run.requireSigner(lessee, 'lessee');
    const l = requireMarket(run, emu, 'Lease', lease);
    if (l.lessee !== lessee) throw fail('NotAuthority', 'only the lessee pays the lease');
    await expectPda(treasury, MARKET_PDAS.treasury(programId), 'treasury');
    const remaining = l.totalPrice - l.paid;
    if (ix.args.amount <= 0n || ix.args.amount > remaining)
      throw fail('InvalidAmount', `a payment is 1..${remaining} lamports`);
    if (run.now > l.paidThrough) throw fail('InvalidState', 'the lease lapsed: it can only be reclaimed');
    run.moveLamports(lessee, treasury, ix.args.amount);
    const paid = l.paid + ix.args.amount;
    write(run, lease, encodeMarketAccount('Lease', { ...l, paid, paidThrough: paidThrough(l.startedAt, paid) }));
  },
  reclaim_expired_lease: async (emu, run, ix) => {
    const { programId } = emu;
    const { payer, handle, lease } = ix.accounts;
    run.requireSigner(payer, 'payer');
    await expectPda(lease, MARKET_PDAS.lease(programId, handle), 'lease');
    const l = readMarket(run, emu, 'Lease', lease);
    if (!l || l.paid >= l.totalPrice) {
      // Registered permanently (no lease) or paid off: the spec's row without a code. It succeeds and says so.
      run.logs.push(NOTHING_TO_RECLAIM_LOG);
      return;
    }
    if (run.now <= l.paidThrough) throw fail('InvalidState', `the lease is paid through ${l.paidThrough}`);
    const h = run.loadHandle(handle);
    write(run, handle, encodeHandle({ ...h, owner: ZERO_ADDRESS, tokenized: false, mint: null }));
    closeAccount(run, lease, l.lessee);
  },
} satisfies MarketRows;

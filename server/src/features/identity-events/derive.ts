// From a finalized transaction to identity-change events (docs/identity-events.md "Derivation"). Every registry
// instruction (top level and CPI) is decoded with THE registry codecs; the "before" of a change comes from the
// registry state the indexer keeps (identity_* tables, written here in the same db transaction as the events, so
// state and log never disagree). Reads the db only through the transaction it is given.
import type { Address } from '@solana/kit';
import type { Transaction } from 'kysely';
import {
  IDENTITY_EVENT_NOTICE,
  IDENTITY_EVENTS_SCHEMA,
  identityEventId,
  type UnsequencedIdentityEvent,
} from '@sigil/contract/identity-events';
import { isoSeconds } from '@sigil/contract/webhooks';
import {
  decodeMarketInstruction,
  decodeRegistryInstruction,
  RegistryDecodeError,
  type MarketInstruction,
  type RegistryInstruction,
} from '../../platform/chain/registry';
import type { ChainTransaction } from '../../platform/chain/types';
import { readKv, writeKv, type Database } from '../../platform/db/index';

type Trx = Transaction<Database>;

/** The registry instructions of a transaction with their position: top level (-1) and CPI. */
export function registryInstructions(
  tx: ChainTransaction,
  programId: Address,
): { ix: RegistryInstruction | MarketInstruction; ixIndex: number; innerIndex: number }[] {
  const out: { ix: RegistryInstruction | MarketInstruction; ixIndex: number; innerIndex: number }[] = [];
  const decode = (data: Uint8Array, accounts: Address[]) => {
    try {
      return decodeMarketInstruction(data, accounts) ?? decodeRegistryInstruction(data, accounts, programId);
    } catch (err) {
      if (err instanceof RegistryDecodeError) return null;
      throw err;
    }
  };
  tx.instructions.forEach((top, ixIndex) => {
    if (top.programId === programId) {
      const ix = decode(top.data, top.accounts);
      if (ix) out.push({ ix, ixIndex, innerIndex: -1 });
    }
    top.inner.forEach((inner, innerIndex) => {
      if (inner.programId !== programId) return;
      const ix = decode(inner.data, inner.accounts);
      if (ix) out.push({ ix, ixIndex, innerIndex });
    });
  });
  return out;
}

/** The handle accounts a transaction's instructions name without carrying the name (read before the db work). */
export function handlesNamed(instructions: { ix: RegistryInstruction | MarketInstruction }[]): Address[] {
  const out = new Set<Address>();
  for (const { ix } of instructions) {
    if (['register', 'start_lease', 'claim_reserved', 'create_invoice', 'pay_invoice'].includes(ix.name)) continue;
    if ('handle' in ix.accounts && ix.accounts.handle) out.add(ix.accounts.handle);
  }
  return [...out];
}

const namespaceKey = (account: string) => `identity:namespace:${account}`;

/** An event without its sequence, plus the wallets it is about (log filter and wallet scopes). */
export interface DerivedEvent {
  event: UnsequencedIdentityEvent;
  wallets: string[];
  handleName: string | null;
}

/**
 * The events of one finalized transaction, applying each change to the kept registry state as it goes (so two
 * instructions on one handle in one transaction see each other). `names`: handle account → name for handles not
 * yet in the kept state (read from chain by the caller; a handle's name never changes: it is its PDA seed).
 */
export async function deriveEvents(
  trx: Trx,
  tx: ChainTransaction,
  programId: Address,
  names: ReadonlyMap<string, string>,
): Promise<DerivedEvent[]> {
  const out: DerivedEvent[] = [];
  const signer = tx.signers[0]!;
  const chain = {
    signature: tx.signature,
    slot: Number(tx.slot),
    blockTime: tx.blockTime === null ? null : isoSeconds(tx.blockTime),
    commitment: 'finalized' as const,
    finalized: true as const,
  };
  const handleRow = (account: string) =>
    trx.selectFrom('identity_handles').selectAll().where('account', '=', account).executeTakeFirst();
  const handleRef = async (account: string) => {
    const name = (await handleRow(account))?.name ?? names.get(account);
    return name === undefined ? null : { name, account };
  };

  for (const { ix, ixIndex, innerIndex } of registryInstructions(tx, programId)) {
    let n = 0;
    const emit = (
      body: Omit<UnsequencedIdentityEvent, 'schema' | 'id' | 'notice' | 'chain'> & Record<string, unknown>,
      extraWallets: (string | null | undefined)[] = [],
    ) => {
      const event = {
        schema: IDENTITY_EVENTS_SCHEMA,
        id: identityEventId(tx.signature, ixIndex, innerIndex, n++),
        type: body.type,
        notice: IDENTITY_EVENT_NOTICE,
        chain: { ...chain, ixIndex, innerIndex },
        handle: body.handle,
        actors: body.actors,
        change: body.change,
      } as UnsequencedIdentityEvent;
      const wallets = new Set<string>([...Object.values(body.actors as Record<string, string>)]);
      for (const w of extraWallets) if (w) wallets.add(w);
      out.push({ event, wallets: [...wallets], handleName: body.handle?.name ?? null });
    };
    /** The primaries that pointed at `handle` and stop counting because `keeps` (the new authority) is not them. */
    const clearPrimaries = async (
      handle: { name: string; account: string },
      keeps: string | null,
      reason: 'handle_transferred' | 'handle_released',
    ) => {
      const rows = await trx
        .selectFrom('identity_primaries')
        .select('wallet')
        .where('handle', '=', handle.account)
        .orderBy('wallet')
        .execute();
      for (const { wallet } of rows) {
        if (wallet === keeps) continue;
        await trx.deleteFrom('identity_primaries').where('wallet', '=', wallet).execute();
        emit(
          {
            type: 'primary.cleared',
            handle,
            actors: { signer, wallet },
            change: { wallet, primary: { before: handle.name, after: null }, reason },
          },
          [],
        );
      }
    };
    const clearPrimariesOf = async (ref: { name: string; account: string } | null) => {
      if (ref) await clearPrimaries(ref, null, 'handle_transferred');
    };
    const dropRecords = (handle: string) => trx.deleteFrom('identity_records').where('handle', '=', handle).execute();
    /**
     * A change of owner made by a market instruction: the kept state follows (records of the previous authority
     * go stale, primaries pointing at the handle stop counting), and the returned `before` is the kept owner.
     */
    const moveOwner = async (handle: string, after: string | null, name?: string) => {
      const prior = await handleRow(handle);
      const ref = name !== undefined ? { name, account: handle } : await handleRef(handle);
      if (ref) {
        await trx
          .insertInto('identity_handles')
          .values({ account: handle, name: ref.name, owner: after, tokenized: 0, mint: null })
          .onConflict((oc) => oc.column('account').doUpdateSet({ owner: after }))
          .execute();
        if ((prior?.owner ?? null) !== after) await dropRecords(handle);
      }
      return { ref, before: prior?.owner ?? null };
    };
    const kv = {
      get: async <T>(kind: string, account: string) => {
        const text = await readKv(trx as never, `identity:${kind}:${account}`);
        return text === undefined ? undefined : (JSON.parse(text) as T);
      },
      set: (kind: string, account: string, value: unknown) =>
        writeKv(trx as never, `identity:${kind}:${account}`, JSON.stringify(value)),
    };
    /** A handle's change of owner as its own event, after the market event that made it (one type to watch). */
    const transferred = async (
      ref: { name: string; account: string } | null,
      before: string | null,
      after: string | null,
      via: string,
    ) => {
      if (!ref || before === after) return;
      if (after === null) {
        emit({ type: 'handle.released', handle: ref, actors: { signer }, change: { owner: { before, after }, via } });
        await clearPrimaries(ref, null, 'handle_released');
        return;
      }
      emit(
        {
          type: 'handle.transferred',
          handle: ref,
          actors: { signer, newOwner: after },
          change: { owner: { before, after }, via },
        },
        [before],
      );
      await clearPrimaries(ref, after, 'handle_transferred');
    };

    const recordRow = (account: string) =>
      trx.selectFrom('identity_records').selectAll().where('account', '=', account).executeTakeFirst();
    /** A record written by its handle's authority or by a delegate: the same kept state and the same event. */
    const setRecord = async (
      handle: string,
      record: string,
      args: { kind: number; key: string; value: string },
      actors: { signer: string; authority: string } | { signer: string; delegate: string },
    ) => {
      const ref = await handleRef(handle);
      if (!ref) return;
      const kind = args.kind === 0 ? 'address' : 'text';
      const prior = await recordRow(record);
      await trx
        .insertInto('identity_records')
        .values({ account: record, handle, kind, key: args.key, value: args.value, verified: 0 })
        .onConflict((oc) => oc.column('account').doUpdateSet({ value: args.value, verified: 0 }))
        .execute();
      emit({
        type: 'record.set',
        handle: ref,
        actors,
        change: {
          kind,
          key: args.key,
          record,
          value: { before: prior?.value ?? null, after: args.value },
          verified: { before: prior ? prior.verified === 1 : null, after: false },
        },
      });
    };

    switch (ix.name) {
      case 'register': {
        const { owner, handle } = ix.accounts;
        const before = (await handleRow(handle))?.owner ?? null;
        const ref = { name: ix.args.name, account: handle };
        await trx
          .insertInto('identity_handles')
          .values({ account: handle, name: ix.args.name, owner, tokenized: 0, mint: null })
          .onConflict((oc) => oc.column('account').doUpdateSet({ owner, tokenized: 0, mint: null }))
          .execute();
        await dropRecords(handle); // a new registration starts without records (older ones are stale)
        emit(
          {
            type: 'handle.registered',
            handle: ref,
            actors: { signer, owner },
            change: { handleType: ix.args.handleType, owner: { before, after: owner } },
          },
          [before],
        );
        break;
      }
      case 'release': {
        const { owner, handle } = ix.accounts;
        const ref = await handleRef(handle);
        if (!ref) break;
        await trx
          .updateTable('identity_handles')
          .set({ owner: null, tokenized: 0, mint: null })
          .where('account', '=', handle)
          .execute();
        await dropRecords(handle);
        emit({
          type: 'handle.released',
          handle: ref,
          actors: { signer, owner },
          change: { owner: { before: owner, after: null } },
        });
        await clearPrimaries(ref, null, 'handle_released');
        break;
      }
      case 'transfer': {
        const { owner, handle } = ix.accounts;
        const newOwner = ix.args.newOwner;
        const ref = await handleRef(handle);
        if (!ref) break;
        await trx.updateTable('identity_handles').set({ owner: newOwner }).where('account', '=', handle).execute();
        await dropRecords(handle); // written by the previous authority: stale from now on
        emit({
          type: 'handle.transferred',
          handle: ref,
          actors: { signer, owner, newOwner },
          change: { owner: { before: owner, after: newOwner } },
        });
        await clearPrimaries(ref, newOwner, 'handle_transferred');
        break;
      }
      case 'tokenize': {
        const { owner, handle, mint } = ix.accounts;
        const ref = await handleRef(handle);
        if (!ref) break;
        await trx.updateTable('identity_handles').set({ tokenized: 1, mint }).where('account', '=', handle).execute();
        emit({
          type: 'handle.tokenized',
          handle: ref,
          actors: { signer, owner },
          change: { tokenized: { before: false, after: true }, mint: { before: null, after: mint } },
        });
        break;
      }
      case 'set_primary': {
        const { wallet, handle } = ix.accounts;
        const ref = await handleRef(handle);
        if (!ref) break;
        const previous = await trx
          .selectFrom('identity_primaries as p')
          .leftJoin('identity_handles as h', 'h.account', 'p.handle')
          .select('h.name')
          .where('p.wallet', '=', wallet)
          .executeTakeFirst();
        await trx
          .insertInto('identity_primaries')
          .values({ wallet, handle })
          .onConflict((oc) => oc.column('wallet').doUpdateSet({ handle }))
          .execute();
        emit({
          type: 'primary.set',
          handle: ref,
          actors: { signer, wallet },
          change: { wallet, primary: { before: previous?.name ?? null, after: ref.name } },
        });
        break;
      }
      case 'set_record': {
        const { authority, handle, record } = ix.accounts;
        await setRecord(handle, record, ix.args, { signer, authority });
        break;
      }
      case 'verify_record': {
        const { authority, handle, record, verifier } = ix.accounts;
        const ref = await handleRef(handle);
        if (!ref) break;
        const prior = await recordRow(record);
        await trx.updateTable('identity_records').set({ verified: 1 }).where('account', '=', record).execute();
        emit({
          type: 'record.verified',
          handle: ref,
          actors: { signer, authority },
          change: {
            kind: (prior?.kind as 'address' | 'text' | undefined) ?? 'address',
            key: prior?.key ?? null,
            record,
            // X1/SOL records are verified by the recorded address signing: the verifier IS the value.
            value: prior?.value ?? (tx.signers.includes(verifier) ? verifier : null),
            verified: { before: prior ? prior.verified === 1 : null, after: true },
          },
        });
        break;
      }
      case 'attest': {
        const { issuer, handle, attestation } = ix.accounts;
        const ref = await handleRef(handle);
        if (!ref) break;
        const { platform, subject, expiresAt } = ix.args;
        await trx
          .insertInto('identity_attestations')
          .values({ account: attestation, handle, issuer, platform, subject, expires_at: expiresAt, revoked: 0 })
          .onConflict((oc) =>
            oc.column('account').doUpdateSet({ issuer, platform, subject, expires_at: expiresAt, revoked: 0 }),
          )
          .execute();
        emit({
          type: 'attestation.created',
          handle: ref,
          actors: { signer, issuer },
          change: { attestation, platform, subject, expiresAt: expiresAt === 0 ? null : isoSeconds(expiresAt) },
        });
        break;
      }
      case 'revoke_attestation': {
        const { issuer, attestation } = ix.accounts;
        const prior = await trx
          .selectFrom('identity_attestations')
          .selectAll()
          .where('account', '=', attestation)
          .executeTakeFirst();
        await trx.updateTable('identity_attestations').set({ revoked: 1 }).where('account', '=', attestation).execute();
        emit({
          type: 'attestation.revoked',
          handle: prior ? await handleRef(prior.handle) : null,
          actors: { signer, issuer },
          change: {
            attestation,
            platform: prior?.platform ?? null,
            subject: prior?.subject ?? null,
            revoked: { before: prior ? prior.revoked === 1 : null, after: true },
          },
        });
        break;
      }
      case 'create_namespace': {
        const { authority, namespace } = ix.accounts;
        await writeKv(trx as never, namespaceKey(namespace), ix.args.tld);
        emit({
          type: 'namespace.created',
          handle: null,
          actors: { signer, authority },
          change: { namespace, tld: ix.args.tld },
        });
        break;
      }
      case 'register_under_namespace':
      case 'register_under_namespace_v2': {
        const { owner, namespace, domain } = ix.accounts;
        const tld = (await readKv(trx as never, namespaceKey(namespace))) ?? null;
        emit({
          type: 'domain.registered',
          handle: null,
          actors: { signer, owner },
          change: {
            domain: { account: domain, label: ix.args.label, tld, namespace },
            owner: { before: null, after: owner },
          },
        });
        break;
      }
      case 'make_offer': {
        const { buyer, handle, offer } = ix.accounts;
        const amount = ix.args.amount.toString();
        await kv.set('offer', offer, { handle, amount });
        emit({
          type: 'offer.made',
          handle: await handleRef(handle),
          actors: { signer, buyer },
          change: { offer, amount },
        });
        break;
      }
      case 'cancel_offer': {
        const { buyer, offer } = ix.accounts;
        const known = await kv.get<{ handle: string; amount: string }>('offer', offer);
        emit({
          type: 'offer.cancelled',
          handle: known ? await handleRef(known.handle) : null,
          actors: { signer, buyer },
          change: { offer, amount: known?.amount ?? null },
        });
        break;
      }
      case 'accept_offer': {
        const { owner, handle, offer, buyer } = ix.accounts;
        const { ref, before } = await moveOwner(handle, buyer);
        const amount = ix.args.expectedAmount.toString();
        emit({
          type: 'offer.accepted',
          handle: ref,
          actors: { signer, owner, buyer },
          change: { offer, amount, owner: { before: before ?? owner, after: buyer } },
        });
        await transferred(ref, before ?? owner, buyer, 'offer.accepted');
        break;
      }
      case 'list_handle': {
        const { seller, handle, listing } = ix.accounts;
        const price = ix.args.price.toString();
        await kv.set('listing', listing, { handle, price });
        emit({
          type: 'listing.created',
          handle: await handleRef(handle),
          actors: { signer, seller },
          change: { listing, price },
        });
        break;
      }
      case 'delist_handle': {
        const { seller, listing } = ix.accounts;
        const known = await kv.get<{ handle: string; price: string }>('listing', listing);
        emit({
          type: 'listing.cancelled',
          handle: known ? await handleRef(known.handle) : null,
          actors: { signer, seller },
          change: { listing, price: known?.price ?? null },
        });
        break;
      }
      case 'buy_listing': {
        const { buyer, handle, listing, seller } = ix.accounts;
        const { ref } = await moveOwner(handle, buyer);
        const price = ix.args.expectedPrice.toString();
        // A listed handle is tokenized: the seller was its authority (NFT holder) whatever the owner field said.
        emit({
          type: 'listing.sold',
          handle: ref,
          actors: { signer, buyer, seller },
          change: { listing, price, owner: { before: seller, after: buyer } },
        });
        await transferred(ref, seller, buyer, 'listing.sold');
        break;
      }
      case 'create_auction': {
        const { seller, handle, auction } = ix.accounts;
        emit({
          type: 'auction.created',
          handle: await handleRef(handle),
          actors: { signer, seller },
          change: { auction, reserve: ix.args.reserve.toString(), durationSeconds: ix.args.duration },
        });
        break;
      }
      case 'place_bid': {
        const { bidder, handle, auction } = ix.accounts;
        const previous = await kv.get<{ bidder: string }>('auction', auction);
        await kv.set('auction', auction, { bidder });
        emit({
          type: 'auction.bid',
          handle: await handleRef(handle),
          actors: { signer, bidder },
          change: { auction, amount: ix.args.amount.toString(), previousBidder: previous?.bidder ?? null },
        });
        break;
      }
      case 'settle_auction': {
        const { handle, auction, seller } = ix.accounts;
        const high = await kv.get<{ bidder: string }>('auction', auction);
        const winner = high?.bidder ?? null;
        const { ref, before } = winner
          ? await moveOwner(handle, winner)
          : { ref: await handleRef(handle), before: seller };
        emit({
          type: 'auction.settled',
          handle: ref,
          actors: { signer, seller },
          change: { auction, winner, owner: { before: before ?? seller, after: winner ?? seller } },
        });
        if (winner) await transferred(ref, before ?? seller, winner, 'auction.settled');
        break;
      }
      case 'cancel_auction':
      case 'close_stale_auction': {
        const { handle, auction, seller } = ix.accounts;
        emit({
          type: ix.name === 'cancel_auction' ? 'auction.cancelled' : 'auction.closed',
          handle: await handleRef(handle),
          actors: { signer, seller },
          change: { auction },
        });
        break;
      }
      case 'create_voucher': {
        const { creator, handle, voucher, recipient } = ix.accounts;
        // The handle is held in escrow by the voucher account until it is claimed or refunded.
        const { ref, before } = await moveOwner(handle, voucher);
        await kv.set('voucher', voucher, { recipient });
        emit({
          type: 'gift.created',
          handle: ref,
          actors: { signer, creator, recipient },
          change: {
            voucher,
            recipient,
            expiresAt: ix.args.expiresAt === 0 ? null : isoSeconds(ix.args.expiresAt),
            owner: { before: before ?? creator, after: voucher },
          },
        });
        await clearPrimariesOf(ref);
        break;
      }
      case 'claim_voucher':
      case 'claim_voucher_tokenized': {
        const { handle, voucher, creator } = ix.accounts;
        const known = await kv.get<{ recipient: string }>('voucher', voucher);
        const recipient =
          'recipient' in ix.accounts ? ix.accounts.recipient : (known?.recipient ?? ix.accounts.claimer);
        const { ref, before } = await moveOwner(handle, recipient);
        emit({
          type: 'gift.claimed',
          handle: ref,
          actors: { signer, creator, recipient },
          change: { voucher, owner: { before: before ?? voucher, after: recipient } },
        });
        await transferred(ref, creator, recipient, 'gift.claimed');
        break;
      }
      case 'refund_voucher': {
        const { creator, handle, voucher } = ix.accounts;
        const { ref, before } = await moveOwner(handle, creator);
        emit({
          type: 'gift.refunded',
          handle: ref,
          actors: { signer, creator },
          change: { voucher, owner: { before: before ?? voucher, after: creator } },
        });
        break;
      }
      case 'start_lease': {
        const { lessee, handle, lease } = ix.accounts;
        const { ref, before } = await moveOwner(handle, lessee, ix.args.name);
        emit({
          type: 'lease.started',
          handle: ref,
          actors: { signer, lessee },
          change: { lease, amount: ix.args.firstPayment.toString(), owner: { before, after: lessee } },
        });
        emit({
          type: 'handle.registered',
          handle: ref,
          actors: { signer, owner: lessee },
          change: { handleType: null, owner: { before, after: lessee }, via: 'lease.started' },
        });
        break;
      }
      case 'pay_lease': {
        const { lessee, handle, lease } = ix.accounts;
        emit({
          type: 'lease.paid',
          handle: await handleRef(handle),
          actors: { signer, lessee },
          change: { lease, amount: ix.args.amount.toString() },
        });
        break;
      }
      case 'reclaim_expired_lease': {
        const { handle, lease } = ix.accounts;
        const { ref, before } = await moveOwner(handle, null);
        emit({
          type: 'lease.reclaimed',
          handle: ref,
          actors: { signer },
          change: { lease, owner: { before, after: null } },
        });
        await transferred(ref, before, null, 'lease.reclaimed');
        break;
      }
      case 'initiate_recovery': {
        const { handle, recovery } = ix.accounts;
        emit({
          type: 'recovery.initiated',
          handle: await handleRef(handle),
          actors: { signer, newOwner: ix.args.newOwner },
          change: { recovery, newOwner: ix.args.newOwner },
        });
        break;
      }
      case 'complete_recovery': {
        const { newOwner, handle, recovery } = ix.accounts;
        const { ref, before } = await moveOwner(handle, newOwner);
        emit({
          type: 'recovery.completed',
          handle: ref,
          actors: { signer, newOwner },
          change: { recovery, owner: { before, after: newOwner } },
        });
        await transferred(ref, before, newOwner, 'recovery.completed');
        break;
      }
      case 'claim_reserved': {
        const { claimant, handle } = ix.accounts;
        const { ref, before } = await moveOwner(handle, claimant, ix.args.name);
        emit({
          type: 'handle.registered',
          handle: ref,
          actors: { signer, owner: claimant },
          change: { handleType: null, owner: { before, after: claimant }, via: 'reserved.claimed' },
        });
        break;
      }
      case 'set_record_delegate': {
        const { authority, handle, delegateAccount } = ix.accounts;
        const prior = await kv.get<{ delegate: string }>('delegate', delegateAccount);
        await kv.set('delegate', delegateAccount, { delegate: ix.args.delegate });
        emit({
          type: 'record.delegate_set',
          handle: await handleRef(handle),
          actors: { signer, authority, delegate: ix.args.delegate },
          change: { delegate: { before: prior?.delegate ?? null, after: ix.args.delegate } },
        });
        break;
      }
      case 'set_record_as_delegate': {
        const { delegate, handle, record } = ix.accounts;
        await setRecord(handle, record, ix.args, { signer, delegate });
        break;
      }
      case 'set_namespace_pricing': {
        const { authority, namespace } = ix.accounts;
        const prior = await kv.get<{ price: string }>('pricing', namespace);
        const price = ix.args.price.toString();
        await kv.set('pricing', namespace, { price });
        emit({
          type: 'namespace.pricing_set',
          handle: null,
          actors: { signer, authority },
          change: { namespace, price: { before: prior?.price ?? null, after: price } },
        });
        break;
      }
      default:
        break; // invoices are the pay stream's; the market's configuration (init_config, reservations) changes no identity
    }
  }
  return out;
}

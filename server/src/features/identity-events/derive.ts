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
  decodeRegistryInstruction,
  RegistryDecodeError,
  type RegistryInstruction,
} from '../../platform/chain/registry';
import type { ChainTransaction } from '../../platform/chain/types';
import { readKv, writeKv, type Database } from '../../platform/db/index';

type Trx = Transaction<Database>;

/** The registry instructions of a transaction with their position: top level (-1) and CPI. */
export function registryInstructions(
  tx: ChainTransaction,
  programId: Address,
): { ix: RegistryInstruction; ixIndex: number; innerIndex: number }[] {
  const out: { ix: RegistryInstruction; ixIndex: number; innerIndex: number }[] = [];
  const decode = (data: Uint8Array, accounts: Address[]) => {
    try {
      return decodeRegistryInstruction(data, accounts, programId);
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
export function handlesNamed(instructions: { ix: RegistryInstruction }[]): Address[] {
  const out = new Set<Address>();
  for (const { ix } of instructions) {
    if (ix.name === 'register' || ix.name === 'create_invoice' || ix.name === 'pay_invoice') continue;
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
    const dropRecords = (handle: string) => trx.deleteFrom('identity_records').where('handle', '=', handle).execute();

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
        const ref = await handleRef(handle);
        if (!ref) break;
        const kind = ix.args.kind === 0 ? 'address' : 'text';
        const prior = await trx
          .selectFrom('identity_records')
          .selectAll()
          .where('account', '=', record)
          .executeTakeFirst();
        await trx
          .insertInto('identity_records')
          .values({ account: record, handle, kind, key: ix.args.key, value: ix.args.value, verified: 0 })
          .onConflict((oc) => oc.column('account').doUpdateSet({ value: ix.args.value, verified: 0 }))
          .execute();
        emit({
          type: 'record.set',
          handle: ref,
          actors: { signer, authority },
          change: {
            kind,
            key: ix.args.key,
            record,
            value: { before: prior?.value ?? null, after: ix.args.value },
            verified: { before: prior ? prior.verified === 1 : null, after: false },
          },
        });
        break;
      }
      case 'verify_record': {
        const { authority, handle, record, verifier } = ix.accounts;
        const ref = await handleRef(handle);
        if (!ref) break;
        const prior = await trx
          .selectFrom('identity_records')
          .selectAll()
          .where('account', '=', record)
          .executeTakeFirst();
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
      case 'register_under_namespace': {
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
      default:
        break; // invoices are the pay stream's
    }
  }
  return out;
}

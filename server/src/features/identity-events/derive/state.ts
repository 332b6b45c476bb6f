// The rules of the kept registry state that several instructions share: naming a handle, clearing the primaries
// that stop counting, a change of owner made by the market, a record write, and the market's own small facts
// (offers, listings, bids, vouchers, delegates, pricing) kept as JSON in the kv table.
import { readKv, writeKv } from '../../../platform/db/index';
import type { DeriveContext } from './context';
import {
  deletePrimary,
  dropRecords,
  handleRow,
  primaryWalletsOf,
  recordRow,
  upsertHandleOwner,
  upsertRecord,
} from './queries';

export interface HandleRef {
  name: string;
  account: string;
}

/** The handle as events name it; null when it is neither kept nor named by the caller. */
export async function handleRef(c: DeriveContext, account: string): Promise<HandleRef | null> {
  const name = (await handleRow(c.trx, account))?.name ?? c.names.get(account);
  return name === undefined ? null : { name, account };
}

/** The primaries that pointed at `handle` and stop counting because `keeps` (the new authority) is not them. */
export async function clearPrimaries(
  c: DeriveContext,
  handle: HandleRef,
  keeps: string | null,
  reason: 'handle_transferred' | 'handle_released',
): Promise<void> {
  const rows = await primaryWalletsOf(c.trx, handle.account);
  for (const { wallet } of rows) {
    if (wallet === keeps) continue;
    await deletePrimary(c.trx, wallet);
    c.emit(
      {
        type: 'primary.cleared',
        handle,
        actors: { signer: c.signer, wallet },
        change: { wallet, primary: { before: handle.name, after: null }, reason },
      },
      [],
    );
  }
}

/**
 * A change of owner made by a market instruction: the kept state follows (records of the previous authority
 * go stale, primaries pointing at the handle stop counting), and the returned `before` is the kept owner.
 */
export async function moveOwner(c: DeriveContext, handle: string, after: string | null, name?: string) {
  const prior = await handleRow(c.trx, handle);
  const ref = name !== undefined ? { name, account: handle } : await handleRef(c, handle);
  if (ref) {
    await upsertHandleOwner(c.trx, handle, ref.name, after);
    if ((prior?.owner ?? null) !== after) await dropRecords(c.trx, handle);
  }
  return { ref, before: prior?.owner ?? null };
}

/** A handle's change of owner as its own event, after the market event that made it (one type to watch). */
export async function transferred(
  c: DeriveContext,
  ref: HandleRef | null,
  before: string | null,
  after: string | null,
  via: string,
): Promise<void> {
  if (!ref || before === after) return;
  if (after === null) {
    c.emit({
      type: 'handle.released',
      handle: ref,
      actors: { signer: c.signer },
      change: { owner: { before, after }, via },
    });
    await clearPrimaries(c, ref, null, 'handle_released');
    return;
  }
  c.emit(
    {
      type: 'handle.transferred',
      handle: ref,
      actors: { signer: c.signer, newOwner: after },
      change: { owner: { before, after }, via },
    },
    [before],
  );
  await clearPrimaries(c, ref, after, 'handle_transferred');
}

/** A record written by its handle's authority or by a delegate: the same kept state and the same event. */
export async function setRecord(
  c: DeriveContext,
  handle: string,
  record: string,
  args: { kind: number; key: string; value: string },
  actors: { signer: string; authority: string } | { signer: string; delegate: string },
): Promise<void> {
  const ref = await handleRef(c, handle);
  if (!ref) return;
  const kind = args.kind === 0 ? 'address' : 'text';
  const prior = await recordRow(c.trx, record);
  await upsertRecord(c.trx, { account: record, handle, kind, key: args.key, value: args.value });
  c.emit({
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
}

/** The kv key of one of the market's small facts the indexer keeps (a voucher, an offer …). */
export const keptFactKey = (kind: string, account: string) => `identity:${kind}:${account}`;

export async function kvGet<T>(c: DeriveContext, kind: string, account: string): Promise<T | undefined> {
  const text = await readKv(c.trx as never, keptFactKey(kind, account));
  return text === undefined ? undefined : (JSON.parse(text) as T);
}

export const kvSet = (c: DeriveContext, kind: string, account: string, value: unknown) =>
  writeKv(c.trx as never, keptFactKey(kind, account), JSON.stringify(value));

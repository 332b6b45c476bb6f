// Gifts (docs/gifts.md). POST /gift/notify: a sender's app names the signature of a finalized `create_voucher`
// transaction; Sigil reads that transaction itself, answers the gifts it made, and wakes the indexer so that the
// `gift.created` identity event (and its identity webhooks) follows at once — the ingestion pipeline emits it, in
// chain order, exactly once; a notify writes nothing. GET /gift/{voucher}: the gift's claimable state, read from the
// chain (a live voucher) or from what the identity log kept (a settled one).
import { base58 } from '@scure/base';
import type { Kysely } from 'kysely';
import { PublicError } from '@sigil/contract/errors';
import { GIFT_LIMITS, type GiftNotifyResult, type GiftState } from '@sigil/contract/gifts';
import { RETRY_AFTER_HEADER } from '@sigil/contract/http-headers';
import { isBase58Address } from '@sigil/contract/names';
import { isoSeconds } from '@sigil/contract/webhooks';
import type { Address } from '@solana/kit';
import { ChainError, type ChainReader, type ChainTransaction } from '../../platform/chain/types';
import type { Database } from '../../platform/db/index';
import { eventStatus, giftCreations, voucherFacts, type GiftCreation } from '../identity-events/index';
import type { RateLimiter } from '../ratelimit/index';
import type { QueueSignal } from '../webhooks/index';

export interface GiftServiceDeps {
  db: Kysely<Database>;
  chain: ChainReader;
  limiter: RateLimiter;
  /** Wakes the indexer (main.ts wires it to the indexer worker; without a listener nothing happens). */
  ingest: QueueSignal;
  /** How long a notify waits for the event to be logged; default GIFT_LIMITS.waitMs. */
  waitMs?: number;
  /** Pause between two looks at the log while waiting. */
  pollMs?: number;
  now?: () => number;
}

/** Who calls: the peer address (the rate-limit key) and the response's header bag (Retry-After on a 429). */
export interface GiftCaller {
  clientIp: string;
  responseHeaders: Record<string, string>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A transaction signature is 64 bytes in base58; anything else is refused before any RPC. */
function checkSignature(signature: string): void {
  let bytes: Uint8Array | undefined;
  try {
    bytes = base58.decode(signature);
  } catch {
    bytes = undefined;
  }
  if (bytes?.length !== 64) throw new PublicError('INVALID_TX_SIGNATURE', signature.slice(0, 128));
}

/** Per client address, in the shared store: a refused call costs no RPC. */
async function admit(deps: GiftServiceDeps, caller: GiftCaller): Promise<void> {
  const verdict = await deps.limiter.limit(
    `gift-notify:${caller.clientIp}`,
    { minute: GIFT_LIMITS.perMinute, day: GIFT_LIMITS.perDay },
    1,
    deps.now?.(),
  );
  if (verdict.passed) return;
  caller.responseHeaders[RETRY_AFTER_HEADER] = String(verdict.retryAfterSeconds ?? 60);
  throw new PublicError('RATE_LIMITED');
}

/** The finalized transaction, or why it is not one Sigil acts on. At most two reads. */
async function finalizedTransaction(chain: ChainReader, signature: string): Promise<ChainTransaction> {
  const tx = await chain.getTransaction(signature, 'finalized');
  if (tx) {
    if (tx.err !== null) throw new PublicError('TX_FAILED', signature);
    return tx;
  }
  // Distinguishes "retry a little later" from "no such transaction" for the caller.
  const seen = await chain.getTransaction(signature, 'confirmed');
  throw new PublicError(seen ? 'TX_NOT_FINALIZED' : 'TX_NOT_FOUND', signature);
}

async function handleName(chain: ChainReader, handle: Address): Promise<string | null> {
  return (await chain.getHandleByAddress(handle, 'finalized'))?.name ?? null;
}

/** Waits (bounded: `waitMs`, one indexed read per `pollMs`) until every event is logged or can never be. */
async function settledStatuses(deps: GiftServiceDeps, gifts: GiftCreation[], slot: bigint) {
  const deadline = Date.now() + (deps.waitMs ?? GIFT_LIMITS.waitMs);
  let statuses = await Promise.all(gifts.map((g) => eventStatus(deps.db, g.eventId, slot)));
  if (statuses.some((s) => s.status === 'pending')) deps.ingest.notify();
  while (statuses.some((s) => s.status === 'pending') && Date.now() < deadline) {
    await sleep(deps.pollMs ?? 50);
    statuses = await Promise.all(gifts.map((g) => eventStatus(deps.db, g.eventId, slot)));
  }
  return statuses;
}

export async function notifyGift(
  deps: GiftServiceDeps,
  caller: GiftCaller,
  signature: string,
): Promise<GiftNotifyResult> {
  checkSignature(signature);
  await admit(deps, caller);
  const tx = await finalizedTransaction(deps.chain, signature);
  const gifts = giftCreations(tx, deps.chain.programId).slice(0, GIFT_LIMITS.maxGiftsPerTransaction);
  if (gifts.length === 0) throw new PublicError('NOT_A_GIFT', signature);
  const names = await Promise.all(gifts.map((g) => handleName(deps.chain, g.ix.accounts.handle)));
  const statuses = await settledStatuses(deps, gifts, tx.slot);
  return {
    signature,
    slot: Number(tx.slot),
    gifts: gifts.map(({ ix, eventId }, i) => ({
      voucher: ix.accounts.voucher,
      handle: { account: ix.accounts.handle, name: names[i]! },
      creator: ix.accounts.creator,
      recipient: ix.accounts.recipient,
      expiresAt: isoSeconds(ix.args.expiresAt),
      event: { id: eventId, ...statuses[i]! },
    })),
  };
}

/** The voucher account, or null when there is none (closed, never existed, or not a voucher). */
async function liveVoucher(chain: ChainReader, voucher: Address) {
  try {
    return await chain.getMarketAccount('Voucher', voucher, 'finalized');
  } catch (err) {
    if (err instanceof ChainError && err.kind === 'malformed') return null;
    throw err;
  }
}

export async function giftState(deps: GiftServiceDeps, voucher: string): Promise<GiftState> {
  if (!isBase58Address(voucher)) throw new PublicError('INVALID_ADDRESS', voucher.slice(0, 128));
  const live = await liveVoucher(deps.chain, voucher as Address);
  if (live) {
    const now = Math.floor((deps.now?.() ?? Date.now()) / 1000);
    return {
      voucher,
      state: now < live.expiresAt ? 'claimable' : 'expired',
      handle: { account: live.handle, name: await handleName(deps.chain, live.handle) },
      creator: live.creator,
      recipient: live.recipient,
      expiresAt: isoSeconds(live.expiresAt),
    };
  }
  const kept = await voucherFacts(deps.db, voucher);
  if (!kept?.outcome) throw new PublicError('GIFT_NOT_FOUND', voucher);
  return {
    voucher,
    state: kept.outcome,
    handle: kept.handle ? { account: kept.handle, name: await handleName(deps.chain, kept.handle as Address) } : null,
    creator: kept.creator ?? null,
    recipient: kept.recipient ?? null,
    expiresAt: kept.expiresAt === undefined ? null : isoSeconds(kept.expiresAt),
  };
}

export interface GiftService {
  /** POST /gift/notify: verify the finalized voucher transaction and make its event prompt. */
  notify(caller: GiftCaller, signature: string): Promise<GiftNotifyResult>;
  /** GET /gift/{voucher}: the gift's state, from the chain or, once settled, from the identity log. */
  state(voucher: string): Promise<GiftState>;
}

export function createGiftService(deps: GiftServiceDeps): GiftService {
  return {
    notify: (caller: GiftCaller, signature: string) => notifyGift(deps, caller, signature),
    state: (voucher: string) => giftState(deps, voucher),
  };
}

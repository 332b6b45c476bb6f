// Registration by signed challenge, for any stream that asks its subscribers for a wallet proof: the engine issues a
// single-use, 10-minute challenge whose message (the stream's own text) the wallet signs, then on registration
// opens the challenge, decodes the signature and lets the stream's scope rule prove control; the challenge is
// consumed and the webhook inserted in one transaction, within the account's cap.
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import type { Kysely } from 'kysely';
import { ApiError } from '@sigil/contract/errors';
import { WEBHOOK_LIMITS } from '@sigil/contract/webhooks';
import { decodeSignature } from '../../platform/crypto/wallet-signature';
import type { Database } from '../../platform/db/index';
import type { WebhookStream } from './stream';
import {
  checkRoomFor,
  insertWithinCap,
  ownRow,
  newSubscriptionRow,
  newWebhookSecret,
  type WebhookCaller,
} from './subscriptions';
import {
  consumeChallenge,
  insertChallenge,
  selectOpenChallenge,
  updateProvenSubscription,
  type ChallengeRow,
  type ProvenScope,
  type SubscriptionRow,
} from './subscription-queries';

/** What a challenge asks for: the scope, the claimed signer, the vetted url and the event types (JSON). */
export type ChallengeFields = Pick<
  ChallengeRow,
  'scope_type' | 'scope_value' | 'wallet' | 'url' | 'event_types' | 'description'
>;

const seconds = (ms: number) => Math.floor(ms / 1000);

/**
 * Stores a challenge for `fields` (LIMIT_REACHED first when the account's webhooks of the stream fill the cap);
 * `message` renders the text the wallet signs from the nonce and the expiry (epoch seconds).
 */
export async function issueChallenge(
  db: Kysely<Database>,
  stream: WebhookStream,
  caller: WebhookCaller,
  request: {
    fields: ChallengeFields;
    message: (nonce: string, expiresAt: number) => string;
    now: number;
    /** A new URL of this existing webhook (no room needed); absent for a registration. */
    webhookId?: string;
  },
): Promise<{ nonce: string; message: string; expires_at: number }> {
  const { fields, now } = request;
  if (request.webhookId === undefined) await checkRoomFor(db, caller.account, stream.name);
  const nonce = base58.encode(randomBytes(24));
  const expiresAt = seconds(now) + WEBHOOK_LIMITS.challengeTtlSeconds;
  const message = request.message(nonce, expiresAt);
  await insertChallenge(db, {
    ...fields,
    nonce,
    account: caller.account,
    key_id: caller.keyId,
    message,
    expires_at: expiresAt * 1000,
    used_at: null,
    created_at: now,
    webhook_id: request.webhookId ?? null,
  });
  return { nonce, message, expires_at: expiresAt };
}

const challengeInvalid = () => new ApiError('CHALLENGE_INVALID', 'nonce is unknown, used or expired');

/**
 * The stream's scope rule: proves the signer controls the challenge's scope; answers the row fields it establishes
 * (the proven scope always; others, such as the watch position, only at registration).
 */
export type ProveScope = (
  challenge: ChallengeRow,
  signature: Uint8Array,
) => Promise<ProvenScope & Partial<SubscriptionRow>>;

/**
 * `{nonce, signature}`: the challenge must be unused, unexpired and issued to this key (else CHALLENGE_INVALID); the
 * signature (raw or off-chain envelope) must decode (SIGNATURE_INVALID); `prove` throws the stream's codes. Then the
 * challenge is consumed and the webhook inserted in one transaction, with the per-account cap (LIMIT_REACHED).
 * Answers the new row (its secret included: shown once).
 */
export async function registerByChallenge(
  db: Kysely<Database>,
  stream: WebhookStream,
  caller: WebhookCaller,
  request: { nonce: string; signature: string; prove: ProveScope; now: () => number },
): Promise<SubscriptionRow> {
  const challenge = await selectOpenChallenge(db, caller, request.nonce, request.now());
  if (!challenge) throw challengeInvalid();
  const decoded = decodeSignature(request.signature);
  if (!decoded.ok) throw new ApiError('SIGNATURE_INVALID', `signature: ${decoded.message}`);
  const proven = await request.prove(challenge, decoded.bytes);

  const now = request.now();
  const row = newSubscriptionRow(now, {
    account: caller.account,
    key_id: caller.keyId,
    scope_type: challenge.scope_type,
    scope_value: challenge.scope_value,
    url: challenge.url,
    event_types: challenge.event_types,
    description: challenge.description,
    secret: newWebhookSecret(),
    stream: stream.name,
    ...proven,
  });
  await db.transaction().execute(async (trx) => {
    // The consume decides (one statement, row count): a replayed or concurrent registration loses here.
    if ((await consumeChallenge(trx, caller.keyId, request.nonce, now)) !== 1) throw challengeInvalid();
    await insertWithinCap(trx, row); // over the cap it throws: rolls back, the nonce included
  });
  return row;
}

/**
 * A new URL for the caller's webhook `id`, proven exactly as a registration: the challenge must be open, issued to
 * this key for this webhook and for this (vetted) `url` (else CHALLENGE_INVALID); the signature must decode
 * (SIGNATURE_INVALID); `prove` applies the stream's scope rule to the webhook's own scope. Then the challenge is
 * consumed and the URL (with the scope's freshly proven wallets) written in one transaction. Answers the new row.
 */
export async function changeUrlByChallenge(
  db: Kysely<Database>,
  stream: WebhookStream,
  caller: WebhookCaller,
  request: { id: string; url: string; nonce: string; signature: string; prove: ProveScope; now: () => number },
): Promise<SubscriptionRow> {
  await ownRow(db, stream, caller, request.id);
  const challenge = await selectOpenChallenge(db, caller, request.nonce, request.now(), request.id);
  if (!challenge || challenge.url !== request.url) throw challengeInvalid();
  const decoded = decodeSignature(request.signature);
  if (!decoded.ok) throw new ApiError('SIGNATURE_INVALID', `signature: ${decoded.message}`);
  // Only the scope's proven wallets (with their watched-wallet rows) and the URL change; the watch position stays (a
  // new destination neither replays nor skips events).
  const { wallets, handle_account, authority_wallet, payment_wallet } = await request.prove(challenge, decoded.bytes);
  const proven = { wallets, handle_account, authority_wallet, payment_wallet };
  const now = request.now();
  const owned = { account: caller.account, id: request.id, stream: stream.name };
  await db.transaction().execute(async (trx) => {
    if ((await consumeChallenge(trx, caller.keyId, request.nonce, now)) !== 1) throw challengeInvalid();
    await updateProvenSubscription(trx, owned, { ...proven, url: challenge.url }, now);
  });
  return ownRow(db, stream, caller, request.id);
}

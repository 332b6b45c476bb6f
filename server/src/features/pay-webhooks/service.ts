// Pay webhooks: the pay stream's registration by signed challenge and its scope rules (docs/webhooks.md); every
// management verb is the webhook engine's on the pay stream. Module functions take the db first; errors are
// ApiError with the spec's codes (statuses in contract/errors.ts).
import type { Kysely } from 'kysely';
import type { Address } from '@solana/kit';
import { ApiError } from '@sigil/contract/errors';
import { isBase58Address } from '@sigil/contract/names';
import type { OwnerWebhookPatch } from '@sigil/contract/owner-webhooks';
import {
  buildWebhookChallengeMessage,
  type ParsedWebhookChallengeRequest,
  type PayEventType,
  type Webhook,
  type WebhookChallengeResponse,
  type WebhookCreated,
  type WebhookRegisterRequest,
} from '@sigil/contract/webhooks';
import { ChainError, type ChainReader } from '../../platform/chain/types';
import { verifyWalletMessage } from '../../platform/crypto/wallet-signature';
import type { Database } from '../../platform/db/index';
import type { Resolver } from '../../platform/outbound/destination-policy';
import {
  changeUrlByChallenge,
  createWebhookStreamService,
  issueChallenge,
  registerByChallenge,
  vetWebhookUrl,
  type ProvenScope,
  type QueueSignal,
  type WebhookCaller,
  type WebhookStreamVerbs,
} from '../webhooks/index';
import * as engine from '../webhooks/index';
import { controllers, readNameControl, PAYMENT_RECORD_KEY } from './control';
import { payWebhookStream as pay, toWebhook } from './stream';

export type { WebhookCaller };

export interface WebhookServiceDeps {
  chain: ChainReader;
  /** DNS for the registration-time destination check; the system resolver by default. */
  resolver?: Resolver;
  /** Local development and tests only (docs/outbound.md): loopback receivers on any port. */
  allowLoopback?: boolean;
  /** Address-record key of the payment address (default X1). */
  paymentRecordKey?: string;
  now?: () => number;
}

function chainFailure(err: unknown): never {
  if (err instanceof ChainError) {
    if (err.kind === 'unreachable') throw new ApiError('RPC_ERROR', 'chain read failed; retry');
    throw new ApiError('CONTROL_UNPROVEN', "the name's on-chain accounts do not decode; control cannot be proven");
  }
  throw err;
}

// ---------------------------------------------------------------------------------------------------------
// Registration: the pay stream's scope rules

/**
 * POST /v1/pay/webhooks/challenge: validates the request (field codes, WALLET_MISMATCH), vets the URL with the
 * outbound destination policy (INVALID_URL / URL_REJECTED), refuses early when the account is full
 * (LIMIT_REACHED), and stores a single-use, 10-minute challenge whose message the wallet signs.
 */
export async function issueWebhookChallenge(
  db: Kysely<Database>,
  deps: WebhookServiceDeps,
  caller: WebhookCaller,
  req: ParsedWebhookChallengeRequest,
): Promise<WebhookChallengeResponse> {
  const url = await vetWebhookUrl(req.url, deps);
  return issueChallenge(db, pay, caller, {
    fields: {
      scope_type: req.scope.type,
      scope_value: req.scope.value,
      wallet: req.wallet,
      url,
      event_types: JSON.stringify(req.eventTypes),
      description: req.description,
    },
    message: (nonce, expiresAt) =>
      buildWebhookChallengeMessage({
        keyId: caller.keyId,
        scope: req.scope.value,
        url,
        eventTypes: req.eventTypes,
        nonce,
        expiresAt,
      }),
    now: deps.now?.() ?? Date.now(),
  });
}

type Challenge = { scope_type: 'wallet' | 'name'; scope_value: string; wallet: string | null; message: string };

/** A wallet scope: the scope wallet itself must have signed. */
function proveWallet(challenge: Challenge, verifies: (signer: string) => boolean): ProvenScope {
  if (challenge.wallet !== null && challenge.wallet !== challenge.scope_value) {
    throw new ApiError('WALLET_MISMATCH', 'wallet: for a wallet scope the signing wallet must be that wallet');
  }
  if (!verifies(challenge.scope_value))
    throw new ApiError('SIGNATURE_INVALID', 'signature does not verify over the message for the scope wallet');
  return {
    wallets: JSON.stringify([challenge.scope_value]),
    handle_account: null,
    authority_wallet: null,
    payment_wallet: null,
  };
}

/** The signer among the name's controllers: the claimed `wallet`, or whichever controller's signature verifies. */
function nameSigner(
  challenge: Challenge,
  control: NonNullable<Awaited<ReturnType<typeof readNameControl>>>,
  candidates: Address[],
  verifies: (signer: string) => boolean,
): void {
  if (challenge.wallet !== null) {
    if (candidates.includes(challenge.wallet as Address)) return;
    if (control.authority.authority === null && control.authority.reason === 'nft-not-in-ata') {
      throw new ApiError(
        'CONTROL_UNPROVEN',
        `${challenge.scope_value}: its NFT is not held in an associated token account, so its holder cannot be proven`,
      );
    }
    throw new ApiError(
      'NOT_CONTROLLER',
      `wallet does not control ${challenge.scope_value} (not its owner, NFT holder or verified payment address)`,
    );
  }
  if (candidates.some(verifies)) return;
  if (candidates.length === 0)
    throw new ApiError('CONTROL_UNPROVEN', `${challenge.scope_value} has no provable controller on chain`);
  throw new ApiError(
    'SIGNATURE_INVALID',
    `signature does not verify over the message for any controller of ${challenge.scope_value}`,
  );
}

/** An `@name` scope: a controller (owner / NFT holder / verified payment address) must have signed. */
async function proveName(
  deps: WebhookServiceDeps,
  challenge: Challenge,
  verifies: (signer: string) => boolean,
): Promise<ProvenScope> {
  // The claimed signer must verify first (a bad signature is SIGNATURE_INVALID whatever the chain says).
  if (challenge.wallet !== null && !verifies(challenge.wallet)) {
    throw new ApiError('SIGNATURE_INVALID', 'signature does not verify over the message for `wallet`');
  }
  let control;
  try {
    control = await readNameControl(
      deps.chain,
      challenge.scope_value.slice(1),
      deps.paymentRecordKey ?? PAYMENT_RECORD_KEY,
    );
  } catch (err) {
    chainFailure(err);
  }
  if (!control) throw new ApiError('NOT_FOUND', `${challenge.scope_value} is not registered`);
  const candidates = controllers(control);
  nameSigner(challenge, control, candidates, verifies);
  return {
    wallets: JSON.stringify(candidates),
    handle_account: control.handle.address,
    authority_wallet: control.authority.authority,
    payment_wallet: control.paymentWallet,
  };
}

/**
 * The pay stream's scope rule: which wallet signed, does it control the scope (the spec's codes), and the finalized
 * slot the webhook watches from.
 */
async function proveControl(deps: WebhookServiceDeps, challenge: Challenge, signature: Uint8Array) {
  const verifies = (signer: string) => verifyWalletMessage({ message: challenge.message, signature, signer }).ok;
  const proven =
    challenge.scope_type === 'wallet' ? proveWallet(challenge, verifies) : await proveName(deps, challenge, verifies);
  let watchFromSlot: bigint;
  try {
    watchFromSlot = await deps.chain.getSlot('finalized');
  } catch (err) {
    chainFailure(err);
  }
  return { ...proven, watch_from_slot: Number(watchFromSlot) };
}

/**
 * POST /v1/pay/webhooks: `{nonce, signature}`. The challenge must be unused, unexpired and issued to this key
 * (else CHALLENGE_INVALID); the signature (raw or off-chain envelope) must verify (SIGNATURE_INVALID); the signer
 * must control the scope (WALLET_MISMATCH / NOT_CONTROLLER / CONTROL_UNPROVEN / NOT_FOUND / RPC_ERROR). Then the
 * challenge is consumed and the webhook inserted in one transaction, with the per-account cap (LIMIT_REACHED).
 */
export async function registerWebhook(
  db: Kysely<Database>,
  deps: WebhookServiceDeps,
  caller: WebhookCaller,
  req: WebhookRegisterRequest,
): Promise<WebhookCreated> {
  const row = await registerByChallenge(db, pay, caller, {
    nonce: req.nonce,
    signature: req.signature,
    prove: (challenge, signature) => proveControl(deps, challenge as Challenge, signature),
    now: () => deps.now?.() ?? Date.now(),
  });
  return { ...toWebhook(row), secret: row.secret };
}

// ---------------------------------------------------------------------------------------------------------
// A new URL (session routes): proven exactly as a registration

/**
 * POST /v1/keys/{id}/webhooks/pay/{webhookId}/challenge: the `sigil-pay-webhook:v1` message for the webhook's own
 * scope and event types and the new (vetted) url, single use, 10 minutes, usable only to change this webhook's URL.
 */
export async function issueUrlChallenge(
  db: Kysely<Database>,
  deps: WebhookServiceDeps,
  caller: WebhookCaller,
  id: string,
  req: { url: string; wallet?: string | undefined },
): Promise<WebhookChallengeResponse> {
  if (req.wallet !== undefined && !isBase58Address(req.wallet))
    throw new ApiError('INVALID_WALLET', 'wallet: expected a base58 wallet address');
  const url = await vetWebhookUrl(req.url, deps);
  const row = await engine.ownRow(db, pay, caller, id);
  const eventTypes = JSON.parse(row.event_types) as PayEventType[];
  return issueChallenge(db, pay, caller, {
    fields: {
      scope_type: row.scope_type as 'wallet' | 'name',
      scope_value: row.scope_value,
      wallet: req.wallet ?? null,
      url,
      event_types: row.event_types,
      description: row.description,
    },
    message: (nonce, expiresAt) =>
      buildWebhookChallengeMessage({ keyId: caller.keyId, scope: row.scope_value, url, eventTypes, nonce, expiresAt }),
    now: deps.now?.() ?? Date.now(),
    webhookId: id,
  });
}

/**
 * PATCH /v1/keys/{id}/webhooks/pay/{webhookId}: a new url needs the nonce of its challenge (CHALLENGE_INVALID) and
 * the signature of its message by a controller of the scope, checked as at registration (SIGNATURE_INVALID,
 * WALLET_MISMATCH, NOT_CONTROLLER, …); description and event_types need no proof (the session is the owner's).
 */
export async function editWebhook(
  db: Kysely<Database>,
  deps: WebhookServiceDeps,
  caller: WebhookCaller,
  id: string,
  patch: OwnerWebhookPatch,
): Promise<Webhook> {
  const now = () => deps.now?.() ?? Date.now();
  if (patch.url === undefined) {
    if (patch.nonce !== undefined || patch.signature !== undefined)
      throw new ApiError('BAD_REQUEST', 'nonce and signature prove a new url: send them with `url`');
  } else {
    if (patch.nonce === undefined)
      throw new ApiError('CHALLENGE_INVALID', 'nonce: a new url needs the nonce of POST …/challenge for it');
    if (patch.signature === undefined)
      throw new ApiError('SIGNATURE_INVALID', "signature: a new url needs the wallet's signature of the challenge");
    const url = await vetWebhookUrl(patch.url, deps);
    await changeUrlByChallenge(db, pay, caller, {
      id,
      url,
      nonce: patch.nonce,
      signature: patch.signature,
      prove: (challenge, signature) => proveControl(deps, challenge as Challenge, signature),
      now,
    });
  }
  return toWebhook(
    await engine.updateWebhook(
      db,
      pay,
      caller,
      id,
      {
        ...(patch.description === undefined ? {} : { description: patch.description }),
        ...(patch.event_types === undefined ? {} : { event_types: patch.event_types }),
      },
      now(),
    ),
  );
}

// ---------------------------------------------------------------------------------------------------------
// The service: the engine's verbs on the pay stream, plus registration

export interface PayWebhooksServiceDeps extends WebhookServiceDeps {
  db: Kysely<Database>;
  /** Registration vets URLs with the loopback rule the delivery client applies: the composition root decides it. */
  allowLoopback: boolean;
  /** False when the deployment turned pay webhooks off (SIGIL_PAY_WEBHOOKS): every verb answers PAY_WEBHOOKS_DISABLED. */
  enabled: boolean;
  /** Told whenever a verb queued a delivery (test event, redeliver, recover) so the delivery worker wakes. */
  queued: QueueSignal;
}

/** The pay stream's verbs: the engine's management verbs, plus registration by signed challenge and its edit. */
export interface PayWebhooksService extends WebhookStreamVerbs<Webhook> {
  issueChallenge(caller: WebhookCaller, req: ParsedWebhookChallengeRequest): Promise<WebhookChallengeResponse>;
  register(caller: WebhookCaller, req: WebhookRegisterRequest): Promise<WebhookCreated>;
  urlChallenge(
    caller: WebhookCaller,
    id: string,
    req: { url: string; wallet?: string | undefined },
  ): Promise<WebhookChallengeResponse>;
  edit(caller: WebhookCaller, id: string, patch: OwnerWebhookPatch): Promise<Webhook>;
}

export function createPayWebhooksService(deps: PayWebhooksServiceDeps): PayWebhooksService {
  const { db } = deps;
  const { on, ...verbs } = createWebhookStreamService({ ...deps, stream: pay });
  return {
    ...verbs,
    issueChallenge: on((caller: WebhookCaller, req: ParsedWebhookChallengeRequest) =>
      issueWebhookChallenge(db, deps, caller, req),
    ),
    register: on((caller: WebhookCaller, req: WebhookRegisterRequest) => registerWebhook(db, deps, caller, req)),
    urlChallenge: on((caller: WebhookCaller, id: string, req: { url: string; wallet?: string | undefined }) =>
      issueUrlChallenge(db, deps, caller, id, req),
    ),
    edit: on((caller: WebhookCaller, id: string, patch: OwnerWebhookPatch) => editWebhook(db, deps, caller, id, patch)),
  };
}

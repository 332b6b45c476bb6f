// The 402 challenge of a request: plain, or a rejection; with a request-bound reference when a payer is bound.
import { createHmac, randomBytes } from 'node:crypto';
import {
  X402_REDEEM_WINDOW_SECONDS,
  deriveReference,
  type X402Challenge,
  type X402ChallengeCode,
  type X402ChallengeV1,
} from '@sigil/contract/x402';
import { buildChallenge, paymentRequired, X402Error } from './challenge';
import type { RequestFacts, X402Deps } from './deps';
import { facilitatorEntries, resourceOf } from './facilitator-quote';
import { insertReference, type IssuedReference } from './queries';
import { guarded } from './store-guard';

/** Issues a fresh reference for this request and payer (nonce = HMAC(secret, 16 random bytes), never sent). */
export async function issueReference(deps: X402Deps, facts: RequestFacts & { payer: string }): Promise<string> {
  const { settings } = deps;
  const secret = await guarded(deps, deps.nonceSecret);
  const nonce = createHmac('sha256', secret).update(randomBytes(16)).digest('base64url');
  const reference = deriveReference({
    domainTag: settings.domainTag,
    canonical: facts.canonical,
    nonce,
    payer: facts.payer,
  });
  const issuedAt = deps.now();
  await guarded(deps, () =>
    insertReference(deps.db, {
      reference,
      request_hash: facts.requestHash,
      payer: facts.payer,
      nonce,
      route: facts.priceClass,
      amount: facts.amount.toString(),
      issued_at: issuedAt,
      expires_at: issuedAt + X402_REDEEM_WINDOW_SECONDS * 1000,
    }),
  );
  return reference;
}

/** The 402: plain, or a rejection; its reference is `reuse` when given, else a fresh one when a payer is bound. */
export async function challengeError(
  deps: X402Deps,
  facts: RequestFacts,
  rejection?: { code: X402ChallengeCode; message: string },
  reuse?: IssuedReference,
): Promise<X402Error> {
  const { settings } = deps;
  const net = await deps.network();
  let reference: string | undefined;
  let amount = facts.amount;
  if (facts.payer && reuse) {
    reference = reuse.reference;
    amount = BigInt(reuse.amount);
  } else if (facts.payer) {
    reference = await issueReference(deps, { ...facts, payer: facts.payer });
  }
  const challenge = buildChallenge(
    {
      network: net,
      asset: settings.asset,
      payTo: settings.payTo,
      amount,
      requestHash: facts.requestHash,
      domainTag: settings.domainTag,
      payer: facts.payer,
      reference,
    },
    rejection,
  );
  const rail = deps.facilitator;
  const entries = rail ? await facilitatorEntries(deps, rail, facts, net) : null;
  if (!rail || !entries) return paymentRequired(challenge);
  // Facilitator rail: its entry first (stock clients pay the first entry they can), `resource` for version 2
  // clients, and the version 1 rendering as the body (version 1 clients read only the body).
  challenge.accepts.unshift(entries.v2);
  const { x402Version, ...rest } = challenge;
  const withResource: X402Challenge = { x402Version, resource: resourceOf(rail, facts), ...rest };
  const body: X402ChallengeV1 | undefined = entries.v1 && {
    x402Version: 1,
    accepts: [entries.v1],
    ...(rejection && { error: rejection.code, code: rejection.code, message: rejection.message }),
  };
  return paymentRequired(withResource, body);
}

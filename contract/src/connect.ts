// Connect sign-in: the shapes that cross the wire, the exact strings a wallet signs, and the codes a malformed
// request answers with (docs/connect.md, spec "Connect"). Pure: no I/O.
//
// Every signed string is `v2` and audience-bound: the audience is the presenting API key's id (the portal's
// own key uses the portal domain). The server always re-derives the expected bytes from the presenting key;
// the unbound `v1` strings are never produced and never accepted.

import { z } from 'zod';
import type { V1ErrorCode } from './errors';
import { isBase58Address, parseHandle } from './names';
import { addCodedIssue, parseCoded, withFieldCodes } from './parse';

// ---------------------------------------------------------------------------------------------------------
// Fixed texts and defaults

/** What a challenge and a session prove (spec: `proves`). */
export const PROVES = 'wallet-control+attestations' as const;

/** Fixed disclaimer carried by every challenge and session object. */
export const DISCLAIMER =
  'Proves current control of this handle or wallet and the listed attestations only; ' +
  'it is not proof of legal identity, personhood or KYC.';

export const SIGNATURE_ENCODING = 'base58' as const;

// The strings a wallet signs: their own module, free of schemas, so that the SDK's light entries carry no zod.
export { handleControlStatement, handleControlString, memoString, walletControlString } from './connect-strings';

// ---------------------------------------------------------------------------------------------------------
// Shared field schemas

const nonceField = z.string().min(1).max(128).meta({ description: 'The challenge nonce, as issued.' });
// 64 bytes take at most 88 characters in base58 and exactly 88 in padded base64; leave room, bound the work.
const signatureField = z.string().min(1).max(128);

export const ConnectModeSchema = z.enum(['tx', 'signin']).meta({
  description:
    '`tx`: address-control challenge proven by a signed (never broadcast) memo transaction. `signin`: ' +
    'address-control challenge proven by a sign-in-with-Solana message. Both require `wallet`.',
});
export type ConnectMode = z.infer<typeof ConnectModeSchema>;

// ---------------------------------------------------------------------------------------------------------
// Requests

/** The code a failing field answers with; anything else (non-object body, unknown shape) is BAD_REQUEST. */
const FIELD_CODES: Record<string, V1ErrorCode> = {
  handle: 'INVALID_HANDLE',
  wallet: 'INVALID_WALLET',
  mode: 'INVALID_CHALLENGE_REQUEST',
  signer: 'INVALID_WALLET',
  signature: 'INVALID_SIGNATURE_ENCODING',
};

/**
 * Challenge request: exactly one of `handle`/`wallet` (INVALID_CHALLENGE_REQUEST), `mode` only with `wallet`
 * (INVALID_CHALLENGE_REQUEST), `wallet` a base58 32-byte address (INVALID_WALLET), `handle` a handle by the name
 * grammar (INVALID_HANDLE). Whether the handle is registered is the service's (HANDLE_NOT_REGISTERED).
 */
export const ChallengeRequestSchema = withFieldCodes(
  z
    .object({
      handle: z
        .string()
        .max(64)
        .optional()
        .meta({ description: 'Handle to prove, optional leading `@`.', example: '@alice' }),
      wallet: z.string().max(64).optional().meta({ description: 'Wallet to prove (base58).' }),
      mode: ConnectModeSchema.optional(),
    })
    .superRefine((req, ctx) => {
      if ((req.handle !== undefined) === (req.wallet !== undefined)) {
        return addCodedIssue(ctx, 'INVALID_CHALLENGE_REQUEST', 'send exactly one of `handle` or `wallet`');
      }
      if (req.handle !== undefined) {
        if (req.mode !== undefined)
          return addCodedIssue(ctx, 'INVALID_CHALLENGE_REQUEST', '`mode` requires `wallet`, not `handle`');
        if (parseHandle(req.handle) === null) return addCodedIssue(ctx, 'INVALID_HANDLE', 'handle: not a valid handle');
      } else if (!isBase58Address(req.wallet!)) {
        addCodedIssue(ctx, 'INVALID_WALLET', 'wallet: expected a base58 32-byte address');
      }
    }),
  { fields: FIELD_CODES, nonObject: 'INVALID_CHALLENGE_REQUEST' },
).meta({
  id: 'ConnectChallengeRequest',
  description: 'Exactly one of `handle` or `wallet`; `mode` requires `wallet`.',
});
export type ChallengeRequest = z.infer<typeof ChallengeRequestSchema>;

/** A validated challenge request. */
export type ParsedChallengeRequest =
  { kind: 'handle'; handle: string } | { kind: 'wallet'; wallet: string; mode: ConnectMode | null };

/** `/verify` body. A present `signer` must be a base58 address (INVALID_WALLET). */
export const VerifyRequestSchema = withFieldCodes(
  z
    .object({
      nonce: nonceField,
      signature: signatureField.meta({
        description: 'base58 ed25519 signature over the challenge bytes (raw or SIMD-0048 envelope).',
      }),
      signer: z
        .string()
        .max(64)
        .optional()
        .meta({ description: 'base58 public key; required unless the challenge was created from `{wallet}`.' }),
    })
    .superRefine((req, ctx) => {
      if (req.signer !== undefined && !isBase58Address(req.signer)) {
        addCodedIssue(ctx, 'INVALID_WALLET', 'signer: expected a base58 32-byte address');
      }
    }),
  { fields: FIELD_CODES },
).meta({ id: 'ConnectVerifyRequest' });
export type VerifyRequest = z.infer<typeof VerifyRequestSchema>;

/** `/verify-tx` body (shape only; the transaction itself is the proof, checked by the service). */
export const VerifyTxRequestSchema = withFieldCodes(
  z.object({
    nonce: nonceField,
    // A memo transaction is well under the 1232-byte packet limit; 4 KiB of base64 bounds hostile input.
    signedTransaction: z
      .string()
      .min(1)
      .max(4096)
      .meta({ description: 'base64 serialized signed transaction (legacy or v0).' }),
  }),
  { fields: FIELD_CODES },
).meta({ id: 'ConnectVerifyTxRequest' });
export type VerifyTxRequest = z.infer<typeof VerifyTxRequestSchema>;

/** `/verify-signin` body (shape only; encodings and the message are checked by the service). */
export const VerifySigninRequestSchema = withFieldCodes(
  z.object({
    nonce: nonceField,
    signedMessage: z.string().min(1).max(8192).meta({ description: 'base64 of the exact signed bytes.' }),
    signature: signatureField.meta({ description: '64-byte ed25519 signature, base58 (base64 accepted).' }),
  }),
  { fields: FIELD_CODES },
).meta({ id: 'ConnectVerifySigninRequest' });
export type VerifySigninRequest = z.infer<typeof VerifySigninRequestSchema>;

// ---------------------------------------------------------------------------------------------------------
// Responses

export const ConnectSourceSchema = z.enum(['owner', 'nft-holder', 'wallet']).meta({
  description:
    '`owner`: untokenized handle, signer is its owner. `nft-holder`: tokenized handle, signer holds the NFT in its ' +
    'associated token account. `wallet`: address-control session.',
});
export type ConnectSource = z.infer<typeof ConnectSourceSchema>;

export const ChallengeSchema = z
  .strictObject({
    nonce: z.string().meta({ description: 'Single-use id, passed back on verify.' }),
    handle: z
      .string()
      .nullable()
      .meta({ description: 'Canonical handle proved; null for an address-control challenge.' }),
    challenge: z.string().meta({ description: 'Exact string to sign (raw UTF-8 bytes, no wrapping, no hashing).' }),
    audience: z
      .string()
      .meta({ description: 'Key id of the presenting API key (the portal key uses the portal domain).' }),
    memo: z.string().optional().meta({ description: 'Only with mode `tx`: `sigil-verify:<audience>:<nonce>`.' }),
    signature_encoding: z.literal(SIGNATURE_ENCODING),
    expires_at: z.number().int().meta({ description: 'Unix seconds.' }),
    proves: z.literal(PROVES),
    disclaimer: z.literal(DISCLAIMER),
  })
  .meta({ id: 'ConnectChallenge' });
export type Challenge = z.infer<typeof ChallengeSchema>;

const sessionReadShape = {
  handle: z.string().nullable().meta({ description: 'Signed-in handle; null for an address-control session.' }),
  address: z.string().meta({ description: 'The wallet that signed.' }),
  verified: z.array(z.string()).meta({
    description: 'Platform slugs the handle holds a live attestation for (read best-effort).',
    example: ['x', 'github'],
  }),
  source: ConnectSourceSchema,
  proves: z.literal(PROVES),
  disclaimer: z.literal(DISCLAIMER),
};

/** Verify responses (`/verify`, `/verify-tx`, `/verify-signin`): the session with its token. */
export const SessionSchema = z
  .strictObject({
    token: z.string().meta({ description: 'Bearer session token (JWT).' }),
    token_type: z.literal('Bearer'),
    expires_at: z.number().int().meta({ description: 'Unix seconds.' }),
    ...sessionReadShape,
  })
  .meta({ id: 'ConnectSession' });
export type Session = z.infer<typeof SessionSchema>;

/** `GET /v1/auth/session`: the same fields without token, token_type, expires_at; re-read live. */
export const SessionReadSchema = z.strictObject(sessionReadShape).meta({ id: 'ConnectSessionRead' });
export type SessionRead = z.infer<typeof SessionReadSchema>;

// ---------------------------------------------------------------------------------------------------------
// Parsing outside a procedure (the server's procedures parse with the schemas above directly)

/** What a valid challenge request asks to prove. */
export function challengeTarget(req: ChallengeRequest): ParsedChallengeRequest {
  if (req.handle !== undefined) return { kind: 'handle', handle: parseHandle(req.handle)! };
  return { kind: 'wallet', wallet: req.wallet!, mode: req.mode ?? null };
}

export function parseChallengeRequest(body: unknown): ParsedChallengeRequest {
  return challengeTarget(parseCoded(ChallengeRequestSchema, body));
}

export function parseVerifyRequest(body: unknown): VerifyRequest {
  return parseCoded(VerifyRequestSchema, body);
}

export function parseVerifyTxRequest(body: unknown): VerifyTxRequest {
  return parseCoded(VerifyTxRequestSchema, body);
}

export function parseVerifySigninRequest(body: unknown): VerifySigninRequest {
  return parseCoded(VerifySigninRequestSchema, body);
}

// ---------------------------------------------------------------------------------------------------------
// Session lifecycle (docs/oidc.md "Session lifecycle")

/** `POST /v1/auth/logout`: the presented session is revoked (false when it already was not active). */
export const LogoutResponseSchema = z.object({ revoked: z.boolean() }).meta({ id: 'ConnectLogoutResponse' });

/** A wallet named in a lifecycle route (a body field or the list filter): a base58 32-byte address (INVALID_WALLET). */
const walletAddress = z.string().max(64).refine(isBase58Address, 'expected a base58 32-byte address');

/** `POST /v1/auth/sessions/revoke`: every active session of `wallet` issued through the presenting key. */
export const RevokeWalletSessionsRequestSchema = withFieldCodes(z.object({ wallet: walletAddress }), {
  fields: { wallet: 'INVALID_WALLET' },
}).meta({ id: 'RevokeWalletSessionsRequest' });

/** `POST /v1/keys/{id}/sessions/revoke`: the same, by the key's owner (portal session) for key `id`. */
export const RevokeKeyWalletSessionsRequestSchema = withFieldCodes(
  z.object({ id: z.string().min(1).max(64), wallet: walletAddress }),
  { fields: { wallet: 'INVALID_WALLET' } },
).meta({ id: 'RevokeKeyWalletSessionsRequest' });

/** `DELETE /v1/keys/{id}/sessions/{jti}`: one session of key `id`, by the key's owner. */
export const RevokeKeySessionParamsSchema = z
  .object({ id: z.string().min(1).max(64), jti: z.string().min(1).max(64) })
  .meta({ id: 'RevokeKeySessionParams' });

export const RevokeKeySessionResponseSchema = z
  .object({
    revoked: z.boolean().meta({
      description: 'True when it was an active session of this key; false when it had ended, or is not this key’s.',
    }),
  })
  .meta({ id: 'RevokeKeySessionResponse' });

export const RevokeWalletSessionsResponseSchema = z
  .object({ revoked: z.number().int().nonnegative().meta({ description: 'How many active sessions were revoked.' }) })
  .meta({ id: 'RevokeWalletSessionsResponse' });

export const ConnectSessionInfoSchema = z
  .object({
    jti: z.string(),
    address: z.string(),
    handle: z.string().nullable(),
    source: ConnectSourceSchema,
    created_at: z.number().int().meta({ description: 'epoch ms' }),
    expires_at: z.number().int().meta({ description: 'epoch ms' }),
    amr: z
      .string()
      .nullable()
      .meta({
        description:
          'The proof path of the OpenID Connect sign-in that made this session, as in its id token’s `amr` ' +
          '(`sigil-signature`, `sigil-memo-tx`, `siws`); null for a session made through the Connect routes directly.',
      }),
  })
  .meta({ id: 'ConnectSessionInfo' });

export const KeySessionsParamsSchema = withFieldCodes(
  z.object({
    id: z.string().min(1).max(64),
    wallet: walletAddress.optional().meta({ description: 'Only this wallet’s sessions.' }),
  }),
  { fields: { wallet: 'INVALID_WALLET' } },
).meta({ id: 'KeySessionsParams' });

export const KeySessionsResponseSchema = z
  .object({
    sessions: z.array(ConnectSessionInfoSchema).meta({ description: 'Active sessions, newest first (500 at most).' }),
  })
  .meta({ id: 'KeySessionsResponse' });

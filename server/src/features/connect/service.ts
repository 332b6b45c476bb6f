// Connect: challenges (issue, store, consume once), the three proofs (/verify, /verify-tx, /verify-signin), and the
// live session read. Procedures unpack and call these; every rule is written down in docs/connect.md.
//
// Order of a verify: load the challenge (CHALLENGE_NOT_FOUND / CHALLENGE_AUDIENCE_MISMATCH / CHALLENGE_EXPIRED),
// check the proof (CONTROL_PROOF_INVALID; a failed proof does NOT burn the challenge), then consume it with ONE
// conditional UPDATE whose row count decides: of N concurrent valid proofs exactly one wins, the rest get
// CHALLENGE_NOT_FOUND. Only then is a session issued.
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import type { Kysely, Selectable } from 'kysely';
import {
  DISCLAIMER,
  handleControlStatement,
  handleControlString,
  memoString,
  PROVES,
  SIGNATURE_ENCODING,
  walletControlString,
  type Challenge,
  type ConnectSource,
  type ParsedChallengeRequest,
  type Session,
  type SessionRead,
  type VerifyRequest,
  type VerifySigninRequest,
  type VerifyTxRequest,
} from '@sigil/contract/connect';
import { ApiError } from '@sigil/contract/errors';
import type { AttestationAccount, ChainReader, HandleAccount } from '../../platform/chain/types';
import { isAttestationLive, isHandleReleased } from '../../platform/chain/trust-rules';
import { decodeSignature, verifyWalletMessage, verifyWalletMessageAsync } from '../../platform/crypto/wallet-signature';
import { affectedRows, createDurabilityBarrier, withoutFsync, type ConnectChallengesTable, type Database } from '../../platform/db/index';
import type { ResolveService } from '../resolve/index';
import type { SessionClaims, SessionService } from './sessions';
import { verifyMemoTransaction } from './memo-tx';
import { verifySigninProof } from './siws';

type ChallengeRow = Selectable<ConnectChallengesTable>;

/** Attestations are best-effort: a read slower than this is abandoned and the session says `verified: []`. */
export const ATTESTATION_READ_BUDGET_MS = 1_500;
/** Consumed and expired challenges are kept this long after expiry (for support), then deleted by housekeeping. */
export const CHALLENGE_RETENTION_MS = 60 * 60 * 1000;

export interface ConnectServiceDeps {
  db: Kysely<Database>;
  chain: ChainReader;
  /** Trusted-primary lookups (cached briefly; the live authority check happens at verify). */
  resolve: ResolveService;
  sessions: SessionService;
  challengeTtlSeconds: number;
  /** Domains a sign-in-with-Solana message may name. */
  signinDomains: readonly string[];
  /** Default ATTESTATION_READ_BUDGET_MS (tests shorten it). */
  attestationBudgetMs?: number;
  /** Default createDurabilityBarrier(db) (tests observe it). */
  durabilityBarrier?: () => Promise<void>;
  now?: () => number;
}

export interface ConnectService {
  createChallenge(audience: string, request: ParsedChallengeRequest): Promise<Challenge>;
  verify(audience: string, request: VerifyRequest): Promise<Session>;
  verifyTx(audience: string, request: VerifyTxRequest): Promise<Session>;
  verifySignin(audience: string, request: VerifySigninRequest): Promise<Session>;
  /** The live view of a verified session (handle authority and attestations re-read). */
  readSession(session: SessionClaims): Promise<SessionRead>;
  /** Housekeeping: deletes challenges expired more than CHALLENGE_RETENTION_MS ago. */
  deleteExpiredChallenges(now?: number): Promise<number>;
}

const proofInvalid = (why: string) => new ApiError('CONTROL_PROOF_INVALID', why);

function newNonce(): string {
  return base58.encode(randomBytes(16)); // 128 bits, alphanumeric (SIWS nonces must be)
}

export function createConnectService(deps: ConnectServiceDeps): ConnectService {
  const { db, chain, sessions } = deps;
  const now = deps.now ?? Date.now;
  const durable = deps.durabilityBarrier ?? createDurabilityBarrier(db);
  const attestationBudgetMs = deps.attestationBudgetMs ?? ATTESTATION_READ_BUDGET_MS;

  /** The live, registered handle, or null (never registered, or released). */
  async function liveHandle(name: string): Promise<HandleAccount | null> {
    const { value } = await chain.getHandle(name, 'confirmed');
    return value && !isHandleReleased(value) ? value : null;
  }

  /**
   * The wallet's trusted primary handle account (docs/names.md trust rules), or null. One read chain (pointer →
   * handle → authority), shared with /reverse and its short cache: the account is not re-read by name after.
   */
  function primaryOf(wallet: string): Promise<HandleAccount | null> {
    return deps.resolve.primaryHandle(wallet);
  }

  /** Slugs of the handle's live attestations in `attestations` (issued under its current registration, unexpired). */
  function slugsOf(handle: HandleAccount, attestations: readonly AttestationAccount[]): string[] {
    const nowSec = Math.floor(now() / 1000);
    const slugs = attestations
      // Issued under the handle's current registration: an attestation from a previous owner does not carry over.
      .filter((a) => a.handle === handle.address && a.issuedAt >= handle.registeredAt && isAttestationLive(a, nowSec))
      .map((a) => a.platform);
    return [...new Set(slugs)].sort();
  }

  /** Resolves to null once the attestation budget has passed (so a slow read never blocks sign-in). */
  function attestationBudget(): { expired: Promise<null>; cancel: () => void } {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), attestationBudgetMs);
    });
    return { expired, cancel: () => clearTimeout(timer) };
  }

  /** Slugs of the handle's live attestations; [] when the read fails or is slow (never blocks sign-in). */
  async function verifiedSlugs(handle: HandleAccount): Promise<string[]> {
    const budget = attestationBudget();
    try {
      const attestations = await Promise.race([chain.getAttestations(handle.address, 'confirmed'), budget.expired]);
      return attestations ? slugsOf(handle, attestations) : [];
    } catch {
      return [];
    } finally {
      budget.cancel();
    }
  }

  /**
   * The live handle and its verified slugs in ONE batched chain request (both are needed at verify and at every
   * session read). The handle read is required; the attestations stay best-effort. Whenever the batch does not
   * deliver in time — it fails as a whole (an HTTP error, a node that refuses batches, a timeout the slow scan
   * caused) or outlasts the attestation budget (a node slow on the scan holds the whole batch) — the handle is
   * re-read alone, whose failure is the 502 it always was, and the slugs are [].
   */
  async function liveHandleAndSlugs(name: string): Promise<{ handle: HandleAccount | null; verified: string[] }> {
    const budget = attestationBudget();
    const batched = chain.getHandleWithAttestations(name, 'confirmed');
    try {
      const read = await Promise.race([batched, budget.expired]).catch(() => null);
      if (!read) {
        batched.catch(() => undefined); // abandoned: its late outcome must not surface as an unhandled rejection
        return { handle: await liveHandle(name), verified: [] };
      }
      const handle = read.handle.value && !isHandleReleased(read.handle.value) ? read.handle.value : null;
      return { handle, verified: handle && read.attestations ? slugsOf(handle, read.attestations) : [] };
    } finally {
      budget.cancel();
    }
  }

  /** Current authority of `handle` if it is `wallet`: its source; else null. Chain failures propagate (502). */
  async function controlOf(handle: HandleAccount, wallet: string): Promise<'owner' | 'nft-holder' | null> {
    const authority = await chain.getHandleAuthority(handle, 'confirmed');
    return authority.authority !== null && authority.authority === wallet ? authority.source : null;
  }

  /** Loads a challenge for a verify and applies the state rules, in the spec's order of precedence. */
  async function openChallenge(audience: string, nonce: string): Promise<ChallengeRow> {
    const row = await db.selectFrom('connect_challenges').selectAll().where('nonce', '=', nonce).executeTakeFirst();
    if (!row || row.used_at !== null) throw new ApiError('CHALLENGE_NOT_FOUND', 'unknown or already used challenge');
    if (row.audience !== audience) throw new ApiError('CHALLENGE_AUDIENCE_MISMATCH', 'the challenge was issued to another API key');
    if (row.expires_at <= now()) throw new ApiError('CHALLENGE_EXPIRED', 'the challenge has expired; request a new one');
    return row;
  }

  /**
   * Consume-once: the single UPDATE whose row count decides the winner of concurrent verifies. A consumed nonce
   * must not come back after a power cut, so nothing is issued before it is on disk: on SQLite it commits without
   * its own fsync and then waits for the shared durability barrier (one fsync for every verify of that moment).
   */
  async function consume(row: ChallengeRow): Promise<void> {
    const at = now();
    const result = await withoutFsync(db, (conn) =>
      conn
        .updateTable('connect_challenges')
        .set({ used_at: at })
        .where('nonce', '=', row.nonce)
        .where('used_at', 'is', null)
        .where('expires_at', '>', at)
        .executeTakeFirst(),
    );
    if (affectedRows(result) !== 1) throw new ApiError('CHALLENGE_NOT_FOUND', 'unknown or already used challenge');
    await durable();
  }

  async function issueSession(audience: string, address: string, handle: HandleAccount | null, source: ConnectSource, known?: string[]): Promise<Session> {
    const verified = known ?? (handle ? await verifiedSlugs(handle) : []);
    const handleName = handle?.name ?? null;
    const { token, claims } = await sessions.issue({ audience, address, handle: handleName, source });
    return { token, token_type: 'Bearer', expires_at: claims.expiresAt, handle: handleName, address, verified, source, proves: PROVES, disclaimer: DISCLAIMER };
  }

  /** Address-control proofs end here: the session reports the wallet's primary (best-effort) and its attestations. */
  async function walletSession(audience: string, wallet: string): Promise<Session> {
    let handle: HandleAccount | null = null;
    try {
      handle = await primaryOf(wallet);
    } catch {
      handle = null; // the session read re-reads it; wallet control is proven either way
    }
    return issueSession(audience, wallet, handle, 'wallet');
  }

  function decodeSig(signature: string, allowBase64: boolean): Uint8Array {
    const decoded = decodeSignature(signature, { allowBase64 });
    if (!decoded.ok) throw new ApiError('INVALID_SIGNATURE_ENCODING', decoded.message);
    return decoded.bytes;
  }

  /** Why a /verify signature failed, when it is one of the refused older forms (diagnostics only; still 401). */
  function explainMismatch(row: ChallengeRow, signer: string, signature: Uint8Array): string {
    const unbound =
      row.kind === 'handle'
        ? [handleControlStatement(row.handle!, BigInt(row.epoch!), row.nonce)]
        : [`sigil-connect:v1:wallet-control:${signer}:${row.nonce}`];
    if (unbound.some((message) => verifyWalletMessage({ message, signature, signer }).ok)) {
      return 'the signature is over an unbound v1 string; sign the v2 audience-bound `challenge` exactly';
    }
    return 'the signature does not verify over this challenge for this signer';
  }

  return {
    async createChallenge(audience, request) {
      const issuedAt = now();
      const expiresAt = issuedAt + deps.challengeTtlSeconds * 1000;
      const nonce = newNonce();
      let row: ChallengeRow;
      if (request.kind === 'handle' || request.mode === null) {
        // {handle}, or {wallet} whose trusted primary makes it a handle-control challenge.
        const handle = request.kind === 'handle' ? await liveHandle(request.handle) : await primaryOf(request.wallet);
        if (request.kind === 'handle' && !handle) throw new ApiError('HANDLE_NOT_REGISTERED', `handle @${request.handle} is not registered`);
        row = handle
          ? {
              nonce, audience, kind: 'handle', handle: handle.name, epoch: handle.registrationEpoch.toString(),
              wallet: request.kind === 'wallet' ? request.wallet : null, mode: null,
              message: handleControlString(audience, handle.name, handle.registrationEpoch, nonce),
              created_at: issuedAt, expires_at: expiresAt, used_at: null,
            }
          : {
              nonce, audience, kind: 'wallet', handle: null, epoch: null, wallet: (request as { wallet: string }).wallet, mode: null,
              message: walletControlString(audience, (request as { wallet: string }).wallet, nonce),
              created_at: issuedAt, expires_at: expiresAt, used_at: null,
            };
      } else {
        // Modes prove wallet control even when the wallet has a primary handle.
        row = {
          nonce, audience, kind: 'wallet', handle: null, epoch: null, wallet: request.wallet, mode: request.mode,
          message: walletControlString(audience, request.wallet, nonce),
          created_at: issuedAt, expires_at: expiresAt, used_at: null,
        };
      }
      // Lost on a power cut, a challenge row only refuses (CHALLENGE_NOT_FOUND): no fsync. The consume stays FULL.
      await withoutFsync(db, (conn) => conn.insertInto('connect_challenges').values(row).execute());
      const challenge: Challenge = {
        nonce,
        handle: row.kind === 'handle' ? row.handle : null,
        challenge: row.message,
        audience,
        signature_encoding: SIGNATURE_ENCODING,
        expires_at: Math.floor(expiresAt / 1000),
        proves: PROVES,
        disclaimer: DISCLAIMER,
      };
      if (row.mode === 'tx') challenge.memo = memoString(audience, nonce);
      return challenge;
    },

    async verify(audience, request) {
      const signature = decodeSig(request.signature, false);
      const row = await openChallenge(audience, request.nonce);
      const signer = request.signer ?? row.wallet;
      if (!signer) throw new ApiError('BAD_REQUEST', 'signer: required for a challenge created from {handle}');
      if (row.wallet !== null && signer !== row.wallet) throw proofInvalid('the signer is not the challenged wallet');

      // The server re-derives the bytes from the presenting key (audience) and the stored challenge.
      const expected =
        row.kind === 'handle'
          ? handleControlString(audience, row.handle!, BigInt(row.epoch!), row.nonce)
          : walletControlString(audience, signer, row.nonce);
      const checked = await verifyWalletMessageAsync({ message: expected, signature, signer });
      if (!checked.ok) throw proofInvalid(explainMismatch(row, signer, signature));

      if (row.kind === 'wallet') {
        await consume(row);
        // No mode: address control was chosen because the wallet had no trusted primary at issue time (≤ the
        // challenge lifetime ago); the session read re-reads it live, so skip a chain round trip here.
        return row.mode === null ? issueSession(audience, signer, null, 'wallet') : walletSession(audience, signer);
      }
      // Handle control is checked live: same registration, and the signer is its current authority.
      const { handle, verified } = await liveHandleAndSlugs(row.handle!);
      if (!handle || handle.registrationEpoch.toString() !== row.epoch) {
        throw proofInvalid(`@${row.handle} was released or re-registered since the challenge was issued`);
      }
      const source = await controlOf(handle, signer);
      if (!source) throw proofInvalid(`the signer is not the current authority of @${row.handle} (owner, or NFT holder when tokenized)`);
      await consume(row);
      return issueSession(audience, signer, handle, source, verified);
    },

    async verifyTx(audience, request) {
      const row = await openChallenge(audience, request.nonce);
      if (row.mode !== 'tx' || !row.wallet) throw proofInvalid('this challenge was not requested with mode `tx`');
      const result = verifyMemoTransaction({ signedTransaction: request.signedTransaction, wallet: row.wallet, audience, nonce: row.nonce });
      if (!result.ok) throw proofInvalid(`${result.reason}: ${result.detail}`);
      await consume(row);
      return walletSession(audience, row.wallet);
    },

    async verifySignin(audience, request) {
      const signature = decodeSig(request.signature, true);
      const row = await openChallenge(audience, request.nonce);
      if (row.kind === 'handle') {
        throw new ApiError('SIGNIN_PATH_HANDLE_UNSUPPORTED', 'this is a handle-control challenge; request it with {wallet, mode: "signin"} for sign-in-with-Solana');
      }
      const result = verifySigninProof({
        signedMessage: request.signedMessage,
        signature,
        wallet: row.wallet!,
        nonce: row.nonce,
        allowedDomains: deps.signinDomains,
        nowMs: now(),
      });
      if (!result.ok) throw proofInvalid(`${result.reason}: ${result.detail}`);
      await consume(row);
      return walletSession(audience, row.wallet!);
    },

    async readSession(session) {
      const base = { address: session.address, proves: PROVES, disclaimer: DISCLAIMER } as const;
      if (session.source === 'wallet') {
        const handle = await primaryOf(session.address);
        return { ...base, handle: handle?.name ?? null, verified: handle ? await verifiedSlugs(handle) : [], source: 'wallet' };
      }
      // A handle session holds only while the wallet still controls the handle (same registration not required:
      // the signer may have re-registered it; what counts is control now).
      const { handle, verified } = session.handle ? await liveHandleAndSlugs(session.handle) : { handle: null, verified: [] };
      const source = handle ? await controlOf(handle, session.address) : null;
      if (!handle || !source) {
        await sessions.revoke(session.jti);
        throw new ApiError('INVALID_SESSION', `the wallet no longer controls @${session.handle}`);
      }
      return { ...base, handle: handle.name, verified, source };
    },

    async deleteExpiredChallenges(at = now()) {
      const result = await db.deleteFrom('connect_challenges').where('expires_at', '<', at - CHALLENGE_RETENTION_MS).executeTakeFirst();
      return affectedRows(result);
    },
  };
}

// The sign-in page of the provider IS Connect (docs/oidc.md "Sign-in"): the page asks for a challenge, the wallet
// signs the exact v2 string, the page posts the proof, and the server verifies it with Connect's own verbs with
// the audience = the client's key id (client_id). Signing in is also the consent: the page names the client and
// every scope before the wallet signs, and the grant holds exactly the requested scopes the client is allowed.
//
//   GET  /oidc/auth?…                      the page, in the authorization endpoint's answer (page.ts
//                                          signInPageInPlace), with the cookies that bind the interaction to the browser
//   GET  /oidc/interaction/:uid            the same page, at the interaction's own URL
//   POST /oidc/interaction/:uid/challenge  {handle} | {wallet, mode?} → the Connect challenge for this client
//   POST /oidc/interaction/:uid/verify     {path: verify|verify-tx|verify-signin, ...that verify's body}
//                                          → {redirect_to}: back to the authorization endpoint
//   POST /oidc/interaction/:uid/abort      → {redirect_to}: access_denied to the client
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import {
  parseChallengeRequest,
  parseVerifyRequest,
  parseVerifySigninRequest,
  parseVerifyTxRequest,
} from '@sigil/contract/connect';
import { ApiError } from '@sigil/contract/errors';
import { OIDC_AMR, type OidcProofPath } from '@sigil/contract/oidc';
import type { OpenedSession } from '../connect/index';
import type { SignedInClaims } from './account';
import { findClientOrNone } from './clients';
import type { ProviderDeps } from './deps';
import { errorPage, PAGE_HEADERS, requestedScopes, signInPage } from './page';
import { collectInto } from './request-scope';
import { PendingWrites } from './writes';

const MAX_BODY_BYTES = 16 * 1024;

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

// The Connect proofs that end in the session row alone: the grant names that row, and no Connect token is signed
// that no one would receive.
const VERIFIERS: Record<
  OidcProofPath,
  (deps: ProviderDeps, audience: string, body: unknown) => Promise<OpenedSession>
> = {
  verify: (deps, audience, body) => deps.connect.proofs.verify(audience, parseVerifyRequest(body)),
  'verify-tx': (deps, audience, body) => deps.connect.proofs.verifyTx(audience, parseVerifyTxRequest(body)),
  // The page asks the wallet to sign in to the issuer's own host; only that host is accepted here, whatever the
  // deployment's allowlist says, so a message signed for another site cannot sign anyone in to this client.
  'verify-signin': (deps, audience, body) =>
    deps.connect.proofs.verifySignin(audience, parseVerifySigninRequest(body), [new URL(deps.issuer).host]),
};

/**
 * The interaction's client while it still is one: its key unrevoked, its registration present (and one the library
 * can build). A key revoked or a registration removed while the page is open ends the sign-in at the next step.
 */
async function clientOf(provider: Provider, details: Details) {
  return findClientOrNone(provider, String(details.params.client_id));
}

const CLIENT_GONE = 'this application is no longer registered with Sigil; start again from the application';

/** Before a challenge or a proof: no Connect session is made for a client that no longer exists. */
async function requireClient(provider: Provider, details: Details): Promise<void> {
  if (!(await clientOf(provider, details))) throw new ApiError('OIDC_CLIENT_NOT_FOUND', CLIENT_GONE);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { ...PAGE_HEADERS, 'content-length': Buffer.byteLength(html) });
  res.end(html);
}

/** The JSON body, capped; anything else is BAD_REQUEST. */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ApiError('PAYLOAD_TOO_LARGE', 'the body is over 16 KiB');
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ApiError('BAD_REQUEST', 'the body must be JSON');
  }
}

function errorBody(error: unknown): { status: number; body: unknown } | undefined {
  if (error instanceof ApiError) return { status: error.status, body: error.toBody() };
  return undefined;
}

async function finish(
  deps: ProviderDeps,
  provider: Provider,
  res: ServerResponse,
  details: Details,
  path: OidcProofPath,
  session: OpenedSession,
) {
  const clientId = String(details.params.client_id);
  // The grant, the interaction's result and the login are written together, in one statement on Postgres: the
  // library's saves are collected instead of written one by one (writes.ts).
  const pending = new PendingWrites();
  await collectInto(pending, async () => {
    const grant = new provider.Grant({ accountId: session.address, clientId });
    // The scopes the grant receives: requested ∩ allowed for the client (the library already dropped the rest).
    grant.addOIDCScope(requestedScopes(details.params).join(' '));
    const grantId = await grant.save();
    // What the library's interactionResult does, on the interaction this request already read (its cookie
    // checked): it would read the same row again.
    details.result = {
      login: { accountId: session.address, amr: [OIDC_AMR[path]], remember: true },
      consent: { grantId },
    };
    // The remaining lifetime, on the library's own clock.
    await details.save(details.exp - Math.floor(Date.now() / 1000));
  });
  const grantId = String(details.result!.consent!.grantId);
  await pending.save(deps, {
    login: {
      grant_id: grantId,
      session_jti: session.jti,
      client_id: clientId,
      address: session.address,
      amr: OIDC_AMR[path],
      expires_at: session.expires_at * 1000,
      claims: JSON.stringify({
        handle: session.handle,
        source: session.source,
        verified: session.verified,
      } satisfies SignedInClaims),
    },
  });
  sendJson(res, 200, { redirect_to: details.returnTo });
}

const ACTIONS: Record<
  string,
  (deps: ProviderDeps, provider: Provider, req: IncomingMessage, res: ServerResponse, details: Details) => Promise<void>
> = {
  'GET ': async (_deps, provider, _req, res, details) => {
    const client = await clientOf(provider, details);
    if (!client) return sendHtml(res, 400, errorPage('invalid_client', CLIENT_GONE));
    sendHtml(
      res,
      200,
      signInPage({
        uid: details.uid,
        clientId: String(details.params.client_id),
        clientName: client.clientName,
        scopes: requestedScopes(details.params),
      }),
    );
  },
  'POST challenge': async (deps, provider, req, res, details) => {
    const request = parseChallengeRequest(await readJson(req));
    await requireClient(provider, details);
    sendJson(res, 200, await deps.connect.createChallenge(String(details.params.client_id), request));
  },
  'POST verify': async (deps, provider, req, res, details) => {
    const body = await readJson(req);
    const { path, ...proof } = (body && typeof body === 'object' ? body : {}) as { path?: unknown };
    if (typeof path !== 'string' || !Object.hasOwn(VERIFIERS, path)) {
      throw new ApiError('BAD_REQUEST', 'path must be verify, verify-tx or verify-signin');
    }
    await requireClient(provider, details);
    const session = await VERIFIERS[path as OidcProofPath](deps, String(details.params.client_id), proof);
    await finish(deps, provider, res, details, path as OidcProofPath, session);
  },
  'POST abort': async (_deps, provider, req, res) => {
    const redirectTo = await provider.interactionResult(
      req,
      res,
      { error: 'access_denied', error_description: 'the user cancelled the sign-in' },
      { mergeWithLastSubmission: false },
    );
    sendJson(res, 200, { redirect_to: redirectTo });
  },
};

/**
 * The steps that make rows or read the chain for anyone who can open a sign-in page (no key is needed: any registered
 * client's authorization request opens one), limited per client address like the other keyless routes.
 */
const LIMITED_STEPS = new Set(['POST challenge', 'POST verify']);

/** 429 RATE_LIMITED with Retry-After, or false when the address may take this step now. */
function refusedForRate(deps: ProviderDeps, req: IncomingMessage, res: ServerResponse): boolean {
  const verdict = deps.pageLimiter.limit(req.socket.remoteAddress ?? '', deps.now());
  if (verdict.passed) return false;
  res.setHeader('retry-after', String(verdict.retryAfterSeconds));
  sendJson(res, 429, {
    code: 'RATE_LIMITED',
    message: `too many sign-in steps from this address; retry after ${verdict.retryAfterSeconds} s`,
  });
  return true;
}

/** Serves `/oidc/interaction/<uid>[/<action>]`; true when the path was one of ours. */
export async function serveInteraction(
  deps: ProviderDeps,
  provider: Provider,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  const [uid, action = ''] = path.split('/');
  const handler = ACTIONS[`${req.method} ${action}`];
  if (!handler) return sendJson(res, 404, { code: 'NOT_FOUND', message: 'no such interaction step' });
  if (LIMITED_STEPS.has(`${req.method} ${action}`) && refusedForRate(deps, req, res)) return;
  let details: Details;
  try {
    // The library finds the interaction the browser's cookie names; the URL must name the same one (a step posted
    // to another interaction's URL must not act on this browser's).
    details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) throw new Error('the interaction is not the one in the URL');
  } catch {
    // Unknown or expired interaction, or the cookie that binds it to this browser is missing.
    if (req.method === 'GET')
      return sendHtml(
        res,
        400,
        errorPage(
          'invalid_request',
          'this sign-in has expired or was started in another browser; start again from the application',
        ),
      );
    return sendJson(res, 400, {
      code: 'BAD_REQUEST',
      message: 'the sign-in has expired or belongs to another browser',
    });
  }
  try {
    await handler(deps, provider, req, res, details);
  } catch (error) {
    const shaped = errorBody(error);
    if (!shaped) throw error;
    sendJson(res, shaped.status, shaped.body);
  }
}

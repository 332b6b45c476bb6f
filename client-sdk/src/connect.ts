// Client side of Connect sign-in: check that a challenge is what you expect BEFORE a wallet signs it, sign it,
// build a sign-in-with-Solana message. The strings come from @sigil/contract/connect-strings (one definition);
// signing is WebCrypto ed25519 (`crypto.subtle`, as @solana/kit's signBytes does it), so this module runs in
// browsers, Node and edge runtimes and needs no Solana library. The /verify-tx memo transaction, which does, is
// `@sigil/sdk/connect-tx`. See docs/connect.md.
import { base58, base64 } from '@scure/base';
import { handleControlString, memoString, walletControlString } from '@sigil/contract/connect-strings';

export { handleControlString, memoString, walletControlString };

/** The fields of a challenge (POST /v1/auth/challenge) that what a wallet signs depends on. */
export interface ChallengeFields {
  challenge: string;
  audience: string;
  nonce: string;
}

/** The SPL Memo program every validator loads (the server also accepts the @solana-program/memo default id). */
export const MEMO_PROGRAM_ID = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';

/** Anything that can sign bytes with an ed25519 key: a kit KeyPairSigner, or a raw CryptoKeyPair. */
export type Ed25519Signer = { keyPair: CryptoKeyPair; address: string } | { privateKey: CryptoKey; address: string };

const privateKeyOf = (signer: Ed25519Signer) => ('keyPair' in signer ? signer.keyPair.privateKey : signer.privateKey);

/**
 * Refuses a challenge that is not a v2 string bound to `expectedAudience` (your key id, or the portal domain):
 * a wallet should never sign an unbound or foreign-audience string. Returns the exact string to sign.
 */
export function checkChallenge(challenge: ChallengeFields, expectedAudience: string): string {
  if (challenge.audience !== expectedAudience)
    throw new Error(`challenge audience ${challenge.audience} is not ${expectedAudience}`);
  const prefixes = [
    `sigil-connect:v2:wallet-control:${expectedAudience}:`,
    `sigil-connect:v2:handle-control:${expectedAudience}:sigil-handles:ctl:v1:`,
  ];
  if (
    !prefixes.some((p) => challenge.challenge.startsWith(p)) ||
    !challenge.challenge.endsWith(`:${challenge.nonce}`)
  ) {
    throw new Error('not a v2 Connect challenge bound to this audience');
  }
  return challenge.challenge;
}

/** ed25519 signature over the exact UTF-8 bytes of `message`, base58 (what /v1/auth/verify takes). */
export async function signMessage(signer: Ed25519Signer, message: string | Uint8Array): Promise<string> {
  const bytes = typeof message === 'string' ? new TextEncoder().encode(message) : message;
  const signature = await crypto.subtle.sign('Ed25519', privateKeyOf(signer), new Uint8Array(bytes));
  return base58.encode(new Uint8Array(signature));
}

/** checkChallenge + signMessage: the body for POST /v1/auth/verify. */
export async function signChallenge(
  challenge: ChallengeFields,
  signer: Ed25519Signer,
  expectedAudience: string,
): Promise<{ nonce: string; signature: string; signer: string }> {
  const message = checkChallenge(challenge, expectedAudience);
  return { nonce: challenge.nonce, signature: await signMessage(signer, message), signer: signer.address };
}

export interface SignInMessageFields {
  /** Your site's host (must be on the deployment's allowlist). */
  domain: string;
  /** The challenged wallet. */
  address: string;
  /** The challenge nonce. */
  nonce: string;
  statement?: string;
  uri?: string;
  chainId?: string;
  /** RFC 3339; default now. */
  issuedAt?: string;
  expirationTime?: string;
  notBefore?: string;
  requestId?: string;
  resources?: string[];
}

/** A sign-in-with-Solana message in the wallet-standard layout (LF line endings, fields in their fixed order). */
export function buildSignInMessage(f: SignInMessageFields): string {
  let text = `${f.domain} wants you to sign in with your Solana account:\n${f.address}`;
  if (f.statement) text += `\n\n${f.statement}`;
  const fields: string[] = [];
  if (f.uri) fields.push(`URI: ${f.uri}`);
  fields.push('Version: 1');
  if (f.chainId) fields.push(`Chain ID: ${f.chainId}`);
  fields.push(`Nonce: ${f.nonce}`);
  fields.push(`Issued At: ${f.issuedAt ?? new Date().toISOString()}`);
  if (f.expirationTime) fields.push(`Expiration Time: ${f.expirationTime}`);
  if (f.notBefore) fields.push(`Not Before: ${f.notBefore}`);
  if (f.requestId) fields.push(`Request ID: ${f.requestId}`);
  if (f.resources?.length) fields.push('Resources:', ...f.resources.map((r) => `- ${r}`));
  return `${text}\n\n${fields.join('\n')}`;
}

/** Signs a sign-in message: the body for POST /v1/auth/verify-signin (signedMessage base64, signature base58). */
export async function signSignIn(
  nonce: string,
  message: string,
  signer: Ed25519Signer,
): Promise<{ nonce: string; signedMessage: string; signature: string }> {
  const bytes = new TextEncoder().encode(message);
  return { nonce, signedMessage: base64.encode(bytes), signature: await signMessage(signer, bytes) };
}

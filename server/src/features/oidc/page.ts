// The sign-in page: plain HTML and one inline script with no dependencies. It finds Wallet Standard wallets (the
// app side of the standard's two window events, as @wallet-standard/app does), offers the Connect proofs each
// wallet can make (docs/oidc.md "The sign-in page is Connect"), checks that what the wallet will sign is bound to
// THIS client before asking it, and posts the proof:
//   message      solana:signMessage      the v2 Connect string          POST …/verify {path: verify}
//   signin       solana:signIn           a Sign-In With Solana message  POST …/verify {path: verify-signin}
//   tx           solana:signTransaction  a memo transaction, never sent POST …/verify {path: verify-tx}
// A user who knows their @handle may sign in with it by message (the challenge is then for the handle and the
// connected wallet must control it; handle challenges take no mode, so the other two proofs are for the wallet).
import type { KoaContextWithOIDC } from 'oidc-provider';
import { DISCLAIMER } from '@sigil/contract/connect';
import { SPL_MEMO_PROGRAM_ADDRESS } from '../../platform/chain/programs';
import { decodeAddress } from '../../platform/crypto/wallet-signature';
import { INTERACTION_PATH } from './deps';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** JSON for a <script> body: no `</script>`, no HTML comment openers. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/** The proofs in the order of preference (the first one a wallet offers is chosen by default), as the portal offers them. */
const PROOF_METHODS = [
  {
    method: 'message',
    feature: 'solana:signMessage',
    label: 'Sign a message',
    hint: 'Your wallet signs a one-time text that names this application. Nothing is sent to a chain.',
  },
  {
    method: 'signin',
    feature: 'solana:signIn',
    label: 'Sign in with Solana',
    hint: 'Your wallet shows a standard sign-in request for this site, naming this application.',
  },
  {
    method: 'tx',
    feature: 'solana:signTransaction',
    label: 'Sign a memo transaction',
    hint: 'For wallets that cannot sign messages (e.g. some hardware wallets): a transaction that names this application and is never sent.',
  },
] as const;

/**
 * The script's pure helpers, plain JavaScript: the inline script includes this exact text and the unit tests
 * (page.happy.test.ts, page.security.test.ts) evaluate it.
 */
export const PAGE_HELPERS = String.raw`
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
function base58(bytes) {
  const digits = [0];
  for (const byte of bytes) {
    let carry = byte;
    for (let i = 0; i < digits.length; i++) { carry += digits[i] << 8; digits[i] = carry % 58; carry = (carry / 58) | 0; }
    while (carry) { digits.push(carry % 58); carry = (carry / 58) | 0; }
  }
  let out = '';
  for (const byte of bytes) { if (byte !== 0) break; out += '1'; }
  for (let i = digits.length - 1; i >= 0; i--) out += ALPHABET[digits[i]];
  return out;
}
function base64(bytes) {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
/** Solana's compact-u16 length prefix: 7 bits a byte, low first, high bit = more. */
function shortVec(n) {
  const out = [];
  for (;;) {
    const low = n & 0x7f;
    n >>= 7;
    if (n === 0) { out.push(low); return out; }
    out.push(low | 0x80);
  }
}
/**
 * The unsigned /verify-tx transaction, the bytes the portal builds with @solana/kit: one empty signature slot; a
 * legacy message with header [1 signer, 0 read-only signers, 1 read-only non-signer], accounts [wallet (fee payer),
 * memo program], a zero blockhash (it is never sent and the service does not read its lifetime), and one
 * instruction: the memo program, no accounts, the memo bytes.
 */
function memoTransaction(walletKey, memoProgramKey, memo) {
  const data = new TextEncoder().encode(memo);
  return Uint8Array.from([
    1, ...new Uint8Array(64),
    1, 0, 1,
    2, ...walletKey, ...memoProgramKey,
    ...new Uint8Array(32),
    1, 1, 0, ...shortVec(data.length), ...data,
  ]);
}
/** The proofs a Wallet Standard wallet can make here: methods is [[method, feature], …] in order of preference. */
function proofMethods(wallet, methods) {
  const features = wallet.features || {};
  const solana = (wallet.chains || []).some((chain) => String(chain).startsWith('solana:'));
  if (!solana || !features['standard:connect']) return [];
  return methods.filter(([, feature]) => features[feature]).map(([method]) => method);
}
/**
 * Why the challenge must not be signed, or null: what the wallet signs must name THIS client (the audience). The
 * message is the v2 string; the memo is bound to the audience; a Sign-In With Solana message carries the nonce
 * of an address-control challenge the service bound to the audience.
 */
function bindingProblem(method, challenge, audience, address) {
  if (!challenge || typeof challenge.nonce !== 'string' || typeof challenge.challenge !== 'string') {
    return 'the service sent no challenge';
  }
  if (challenge.audience !== audience) return 'refusing a challenge issued for another application';
  const nonce = challenge.nonce;
  const walletString = 'sigil-connect:v2:wallet-control:' + audience + ':' + address + ':' + nonce;
  if (method === 'tx') {
    if (challenge.challenge !== walletString || challenge.memo !== 'sigil-verify:' + audience + ':' + nonce) {
      return 'refusing to sign a memo not bound to this application';
    }
    return null;
  }
  if (method === 'signin') {
    // A SIWS nonce is alphanumeric, at least 8 characters (EIP-4361).
    if (challenge.challenge !== walletString || !/^[A-Za-z0-9]{8,}$/.test(nonce)) {
      return 'refusing a sign-in not bound to this application';
    }
    return null;
  }
  const handlePrefix = 'sigil-connect:v2:handle-control:' + audience + ':sigil-handles:ctl:v1:';
  const text = challenge.challenge;
  if (text === walletString || (text.startsWith(handlePrefix) && text.endsWith(':' + nonce))) return null;
  return 'refusing to sign a string not bound to this application';
}
/**
 * Why a signed Sign-In With Solana message must not be sent, or null: the wallet builds the text, so check what
 * the service will check: line 1 names this site, line 2 the account, and a Nonce line carries the nonce. The
 * text may follow an off-chain message envelope (first byte 0xff) when the wallet wrapped it.
 */
function signInProblem(signedMessage, host, address, nonce) {
  const bytes = Uint8Array.from(signedMessage);
  const text = new TextDecoder().decode(bytes);
  const head = host + ' wants you to sign in with your Solana account:\n' + address + '\n';
  const start = text.indexOf(head);
  if (start !== 0 && !(start > 0 && bytes[0] === 0xff)) {
    return 'the wallet signed a sign-in for another site or account';
  }
  if (!text.slice(start).split('\n').includes('Nonce: ' + nonce)) {
    return 'the wallet signed a sign-in without this sign-in\u2019s nonce';
  }
  return null;
}
`;

/**
 * The page's behaviour, after PAGE_HELPERS and CONFIG: the proofs (one entry each: ask the wallet, answer the body
 * of POST …/verify), the wallet list and the proof choice, and the sign-in itself.
 */
const PAGE_SCRIPT = String.raw`
  const $ = (id) => document.getElementById(id);
  const say = (text) => { $('status').textContent = text; };
  const fail = (message) => { $('error').textContent = message; };
  const post = async (step, body) => {
    const res = await fetch(CONFIG.base + '/' + step, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), credentials: 'same-origin' });
    const json = await res.json();
    if (!res.ok) throw new Error(json.message || json.code || 'HTTP ' + res.status);
    return json;
  };
  const challengeFor = async (method, account, body) => {
    const challenge = await post('challenge', body);
    const problem = bindingProblem(method, challenge, CONFIG.audience, account.address);
    if (problem) throw new Error(problem);
    return challenge;
  };
  // One entry per proof: ask the wallet, answer the body of POST …/verify.
  const PROVE = {
    message: async (wallet, account) => {
      const handle = $('handle').value.trim();
      const challenge = await challengeFor('message', account, handle ? { handle } : { wallet: account.address });
      say('Approve the message in your wallet: ' + challenge.challenge);
      const [signed] = await wallet.features['solana:signMessage'].signMessage({ account, message: new TextEncoder().encode(challenge.challenge) });
      return { path: 'verify', nonce: challenge.nonce, signature: base58(signed.signature), signer: account.address };
    },
    signin: async (wallet, account) => {
      const challenge = await challengeFor('signin', account, { wallet: account.address, mode: 'signin' });
      say('Approve the sign-in request in your wallet');
      const [signed] = await wallet.features['solana:signIn'].signIn({ domain: location.host, address: account.address, statement: CONFIG.statement, uri: location.origin, version: '1', nonce: challenge.nonce, issuedAt: new Date().toISOString() });
      const problem = signInProblem(signed.signedMessage, location.host, account.address, challenge.nonce);
      if (problem) throw new Error(problem);
      return { path: 'verify-signin', nonce: challenge.nonce, signedMessage: base64(signed.signedMessage), signature: base58(signed.signature) };
    },
    tx: async (wallet, account) => {
      const key = Uint8Array.from(account.publicKey || []);
      if (key.length !== 32 || base58(key) !== account.address) throw new Error('the wallet account has no valid public key');
      const challenge = await challengeFor('tx', account, { wallet: account.address, mode: 'tx' });
      say('Approve the transaction in your wallet (memo: ' + challenge.memo + '); it is never sent');
      const [signed] = await wallet.features['solana:signTransaction'].signTransaction({ account, transaction: memoTransaction(key, CONFIG.memoProgram, challenge.memo) });
      return { path: 'verify-tx', nonce: challenge.nonce, signedTransaction: base64(signed.signedTransaction) };
    },
  };
  const chosenMethod = () => { const checked = document.querySelector('input[name="method"]:checked'); return checked ? checked.value : null; };
  let busy = false;
  const signIn = async (wallet, method) => {
    if (busy) return;
    busy = true;
    fail('');
    try {
      say('Connecting to ' + wallet.name + '…');
      const { accounts } = await wallet.features['standard:connect'].connect();
      const account = accounts.find((a) => (a.chains || []).some((c) => String(c).startsWith('solana:'))) || accounts[0];
      if (!account) throw new Error('the wallet shared no account');
      const proof = await PROVE[method](wallet, account);
      say('Verifying…');
      const done = await post('verify', proof);
      window.location.assign(done.redirect_to);
    } catch (error) {
      say('');
      fail('Sign-in failed: ' + String((error && error.message) || error));
    } finally {
      busy = false;
    }
  };
  const wallets = [];
  const line = (text) => { const p = document.createElement('p'); p.textContent = text; return p; };
  const walletEntry = (wallet, methods, method, index) => {
    const p = document.createElement('p');
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = 'Sign in with ' + wallet.name;
    button.addEventListener('click', () => signIn(wallet, chosenMethod()));
    p.appendChild(button);
    if (!methods.includes(method)) {
      button.disabled = true;
      const note = document.createElement('span');
      note.id = 'wallet-note-' + index;
      note.className = 'hint';
      note.textContent = wallet.name + ' cannot ' + CONFIG.labels[method].toLowerCase() + '; choose another way above.';
      button.setAttribute('aria-describedby', note.id);
      p.appendChild(note);
    }
    return p;
  };
  const render = () => {
    const box = $('wallets');
    box.textContent = '';
    const solana = wallets.filter((w) => (w.chains || []).some((c) => String(c).startsWith('solana:')));
    const entries = solana.map((wallet) => ({ wallet, methods: proofMethods(wallet, CONFIG.methods) }));
    const offered = CONFIG.methods.map(([m]) => m).filter((m) => entries.some((e) => e.methods.includes(m)));
    for (const input of document.querySelectorAll('input[name="method"]')) input.parentElement.hidden = !offered.includes(input.value);
    $('methods').hidden = offered.length === 0;
    if (!offered.includes(chosenMethod()) && offered.length) $('method-' + offered[0]).checked = true;
    const method = chosenMethod();
    $('handle').disabled = method !== 'message';
    $('handle-note').hidden = method === 'message' || !offered.length;
    if (!solana.length) box.appendChild(line('No Solana wallet found in this browser.'));
    entries.forEach(({ wallet, methods }, index) => {
      box.appendChild(methods.length
        ? walletEntry(wallet, methods, method, index)
        : line(wallet.name + ' cannot sign in here: it offers none of message signing, Sign-In With Solana or transaction signing.'));
    });
  };
  const api = {
    register: (...added) => {
      wallets.push(...added);
      render();
      return () => { for (const w of added) { const i = wallets.indexOf(w); if (i >= 0) wallets.splice(i, 1); } render(); };
    },
  };
  window.addEventListener('wallet-standard:register-wallet', ({ detail }) => detail(api));
  window.dispatchEvent(new CustomEvent('wallet-standard:app-ready', { detail: api }));
  for (const input of document.querySelectorAll('input[name="method"]')) input.addEventListener('change', render);
  $('cancel').addEventListener('click', async () => {
    try { window.location.assign((await post('abort', {})).redirect_to); } catch (error) { fail(String(error.message)); }
  });
  render();
`;

/** The SIWS statement: the client's name on one line (a statement has no line breaks) and its key id. */
function statementFor(clientId: string, clientName: string | undefined): string {
  const name = Array.from((clientName ?? '').replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ').trim())
    .slice(0, 80)
    .join('');
  return `Sign in to ${name && name !== clientId ? `${name} (${clientId})` : clientId} with Sigil.`;
}

const METHOD_CHOICES = PROOF_METHODS.map(
  (m) =>
    `<label class="choice" hidden><input type="radio" name="method" id="method-${m.method}" value="${m.method}"> ` +
    `${escapeHtml(m.label)}<span class="hint">${escapeHtml(m.hint)}</span></label>`,
).join('\n');

/** The script's configuration every page shares: computed once, not per page. */
const FIXED_CONFIG = {
  memoProgram: Array.from(decodeAddress(SPL_MEMO_PROGRAM_ADDRESS)!),
  methods: PROOF_METHODS.map((m) => [m.method, m.feature]),
  labels: Object.fromEntries(PROOF_METHODS.map((m) => [m.method, m.label])),
};

// The page is a template with four slots (the client's name, its key id, the scopes, the script's configuration):
// the fixed text around them (styles, the proof choices, the whole script) is put together once.
const PAGE_HEAD = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in with Sigil</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}button{margin:.25rem 0;padding:.5rem 1rem}fieldset{margin:1rem 0}.choice{display:block;margin:.5rem 0}.hint{display:block;margin-left:1.5rem;font-size:.875rem;color:#555}#error{color:#b00020}[hidden]{display:none!important}</style>
</head><body>
<h1>Sign in to `;
const PAGE_BODY = `</ul>
<p>Your wallet will sign a proof that names this application. Nothing is sent to a chain and nothing is paid. ${escapeHtml(DISCLAIMER)}</p>
<fieldset id="methods" hidden><legend>How your wallet proves it is yours</legend>
${METHOD_CHOICES}
</fieldset>
<p><label>@handle (optional) <input id="handle" autocomplete="off" placeholder="@alice" aria-describedby="handle-note"></label>
<span id="handle-note" class="hint" hidden>A @handle sign-in uses message signing.</span></p>
<div id="wallets"><p>Looking for wallets…</p></div>
<p id="status" aria-live="polite"></p>
<p><button id="cancel" type="button">Cancel</button></p>
<p id="error" role="alert"></p>
<script>
(() => {
${PAGE_HELPERS}
  const CONFIG = `;
const PAGE_TAIL = `;
${PAGE_SCRIPT}})();
</script>
</body></html>`;

export function signInPage(input: { uid: string; clientId: string; clientName?: string; scopes: string[] }): string {
  const name = escapeHtml(input.clientName ?? input.clientId);
  const scopes = input.scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('');
  const config = {
    base: `${INTERACTION_PATH}/${input.uid}`,
    audience: input.clientId,
    statement: statementFor(input.clientId, input.clientName),
    ...FIXED_CONFIG,
  };
  return `${PAGE_HEAD}${name}</h1>
<p><code>${escapeHtml(input.clientId)}</code> asks for:</p><ul>${scopes}${PAGE_BODY}${scriptJson(config)}${PAGE_TAIL}`;
}

/** The page the provider shows for an error it cannot send back to the client (and for a resume not saved). */
export function errorPage(error: string, description?: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in error</title></head><body>
<h1>Sign-in error</h1><p><code>${escapeHtml(error)}</code></p><p>${escapeHtml(description ?? '')}</p></body></html>`;
}

/** The headers of every HTML answer of the interaction (the page, its error pages), Content-Length aside. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  // The page's one inline script is allowed by hash-free nonce-less 'self' rules: it is served inline, so allow
  // inline scripts but nothing from elsewhere, and never framing (clickjacking of the consent).
  'content-security-policy':
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-frame-options': 'DENY',
  // The page's URL may be the authorization request itself (state, PKCE challenge): never sent on as a referrer.
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

/** The scopes the page names: those of the authorization request (the library already dropped any not allowed). */
export function requestedScopes(params: Record<string, unknown>): string[] {
  return String(params.scope ?? 'openid')
    .split(' ')
    .filter(Boolean);
}

/**
 * The sign-in page in the answer that starts the interaction, instead of a redirect to it (provider middleware).
 * When the authorization endpoint (or its resume) needs the user, the library saves the interaction, sets the two
 * cookies that bind it to this browser (one for the page's steps under the interaction's path, one for the resume),
 * and answers 303 to the interaction's page. Answering with that page straight away saves the browser a round trip
 * and the service a request (the page's step would read the interaction and check its cookie again, moments after
 * the library wrote both). The page is the same document with the same headers; its steps post to the interaction's
 * path, so it works from this URL as from its own, and `GET /oidc/interaction/<uid>` still serves it (a reload
 * there, or an interaction reached by its URL). Only the redirect to THIS request's new interaction is replaced:
 * every other answer (a redirect back to the client with a code or an error, an error page) passes unchanged.
 */
export async function signInPageInPlace(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
  await next();
  const interaction = ctx.oidc?.entities.Interaction;
  if (ctx.status !== 303 || !interaction || ctx.response.get('location') !== `${INTERACTION_PATH}/${interaction.uid}`)
    return;
  const clientId = String(interaction.params.client_id);
  ctx.status = 200;
  ctx.body = signInPage({
    uid: interaction.uid,
    clientId,
    clientName: ctx.oidc.client?.clientId === clientId ? ctx.oidc.client.clientName : undefined,
    scopes: requestedScopes(interaction.params),
  });
  ctx.remove('location');
  ctx.set({ ...PAGE_HEADERS });
}

// The sign-in page: plain HTML and one inline script with no dependencies. It finds Wallet Standard wallets (the
// app side of the standard's two window events, as @wallet-standard/app does), lets the user pick one, checks that
// the string to sign is a v2 Connect string bound to THIS client before asking the wallet, signs it with
// `solana:signMessage`, and posts the proof. A user who knows their @handle may sign in with it instead (the
// challenge is then for the handle and the connected wallet must control it).
import { DISCLAIMER } from '@sigil/contract/connect';
import { INTERACTION_PATH } from './deps';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** JSON for a <script> body: no `</script>`, no HTML comment openers. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export function signInPage(input: { uid: string; clientId: string; clientName?: string; scopes: string[] }): string {
  const name = escapeHtml(input.clientName ?? input.clientId);
  const scopes = input.scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('');
  const config = { base: `${INTERACTION_PATH}/${input.uid}`, audience: input.clientId };
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in with Sigil</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}button{margin:.25rem 0;padding:.5rem 1rem}#error{color:#b00020}</style>
</head><body>
<h1>Sign in to ${name}</h1>
<p><code>${escapeHtml(input.clientId)}</code> asks for:</p><ul>${scopes}</ul>
<p>Your wallet will sign a message that names this application. ${escapeHtml(DISCLAIMER)}</p>
<label>@handle (optional) <input id="handle" autocomplete="off" placeholder="@alice"></label>
<div id="wallets"><p>Looking for wallets…</p></div>
<p><button id="cancel" type="button">Cancel</button></p>
<p id="error" role="alert"></p>
<script>
(() => {
  const CONFIG = ${scriptJson(config)};
  const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  const base58 = (bytes) => {
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
  };
  const $ = (id) => document.getElementById(id);
  const fail = (message) => { $('error').textContent = message; };
  const post = async (step, body) => {
    const res = await fetch(CONFIG.base + '/' + step, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), credentials: 'same-origin' });
    const json = await res.json();
    if (!res.ok) throw new Error(json.message || json.code || 'HTTP ' + res.status);
    return json;
  };
  const expectedPrefixes = ['sigil-connect:v2:wallet-control:' + CONFIG.audience + ':', 'sigil-connect:v2:handle-control:' + CONFIG.audience + ':'];
  const signIn = async (wallet) => {
    fail('');
    try {
      const { accounts } = await wallet.features['standard:connect'].connect();
      const account = accounts[0];
      if (!account) throw new Error('the wallet shared no account');
      const handle = $('handle').value.trim();
      const challenge = await post('challenge', handle ? { handle } : { wallet: account.address });
      if (!expectedPrefixes.some((p) => challenge.challenge.startsWith(p))) throw new Error('refusing to sign a string not bound to this application');
      const [signed] = await wallet.features['solana:signMessage'].signMessage({ account, message: new TextEncoder().encode(challenge.challenge) });
      const done = await post('verify', { path: 'verify', nonce: challenge.nonce, signature: base58(signed.signature), signer: account.address });
      window.location.assign(done.redirect_to);
    } catch (error) { fail(String(error && error.message || error)); }
  };
  const wallets = [];
  const render = () => {
    const box = $('wallets');
    box.textContent = '';
    const usable = wallets.filter((w) => w.features['standard:connect'] && w.features['solana:signMessage']);
    if (!usable.length) { box.innerHTML = '<p>No Solana wallet found in this browser.</p>'; return; }
    for (const wallet of usable) {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = 'Sign in with ' + wallet.name;
      button.addEventListener('click', () => signIn(wallet));
      box.appendChild(button);
    }
  };
  const api = { register: (...added) => { wallets.push(...added); render(); return () => {}; } };
  window.addEventListener('wallet-standard:register-wallet', ({ detail }) => detail(api));
  window.dispatchEvent(new CustomEvent('wallet-standard:app-ready', { detail: api }));
  $('cancel').addEventListener('click', async () => {
    try { window.location.assign((await post('abort', {})).redirect_to); } catch (error) { fail(String(error.message)); }
  });
  render();
})();
</script>
</body></html>`;
}

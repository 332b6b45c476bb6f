// The sign-in page refuses, before the wallet is asked, what is not bound to THIS client, and refuses to send a
// sign-in the wallet built for another site, account or nonce (test/support/oidc-page.ts evaluates the page's
// script helpers). Everything the page shows is escaped, and nothing a client names can end the script.
import { describe, expect, it } from 'vitest';
import { pageHelpers as h } from '../../../../test/support/oidc-page';
import { signInPage } from './page';

const WALLET = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
const OTHER_WALLET = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const nonce = 'N7QpX2kd9aBc';
const wallet = { nonce, audience: 'key_A', challenge: `sigil-connect:v2:wallet-control:key_A:${WALLET}:${nonce}` };

describe('what the wallet would sign must name this client', () => {
  it('no challenge, or one issued for another application', () => {
    expect(h.bindingProblem('message', null, 'key_A', WALLET)).toBe('the service sent no challenge');
    expect(h.bindingProblem('message', { nonce }, 'key_A', WALLET)).toBe('the service sent no challenge');
    for (const method of ['message', 'signin', 'tx']) {
      expect(h.bindingProblem(method, { ...wallet, audience: 'key_B' }, 'key_A', WALLET)).toBe(
        'refusing a challenge issued for another application',
      );
    }
  });

  it('message: another audience in the string, the unbound v1 string, another wallet, another nonce', () => {
    const refusal = 'refusing to sign a string not bound to this application';
    for (const challenge of [
      `sigil-connect:v2:wallet-control:key_B:${WALLET}:${nonce}`,
      `sigil-connect:v1:wallet-control:${WALLET}:${nonce}`,
      `sigil-connect:v2:wallet-control:key_A:${OTHER_WALLET}:${nonce}`,
      `sigil-connect:v2:wallet-control:key_A:${WALLET}:other`,
      `sigil-connect:v2:handle-control:key_B:sigil-handles:ctl:v1:alice:1:${nonce}`,
      `sigil-connect:v2:handle-control:key_A:sigil-handles:ctl:v1:alice:1:other`,
      `sigil-handles:ctl:v1:alice:1:${nonce}`,
    ]) {
      expect(h.bindingProblem('message', { ...wallet, challenge }, 'key_A', WALLET), challenge).toBe(refusal);
    }
  });

  it('memo transaction: a memo for another audience, the unbound v1 memo, no memo', () => {
    const refusal = 'refusing to sign a memo not bound to this application';
    for (const memo of [`sigil-verify:key_B:${nonce}`, `sigil-verify:${nonce}`, undefined]) {
      expect(h.bindingProblem('tx', { ...wallet, memo }, 'key_A', WALLET), String(memo)).toBe(refusal);
    }
    const handle = `sigil-connect:v2:handle-control:key_A:sigil-handles:ctl:v1:alice:1:${nonce}`;
    expect(
      h.bindingProblem('tx', { ...wallet, challenge: handle, memo: `sigil-verify:key_A:${nonce}` }, 'key_A', WALLET),
    ).toBe(refusal);
  });

  it('Sign-In With Solana: a handle-control challenge, another wallet, or a nonce that is not a SIWS nonce', () => {
    const refusal = 'refusing a sign-in not bound to this application';
    const handle = `sigil-connect:v2:handle-control:key_A:sigil-handles:ctl:v1:alice:1:${nonce}`;
    expect(h.bindingProblem('signin', { ...wallet, challenge: handle }, 'key_A', WALLET)).toBe(refusal);
    expect(h.bindingProblem('signin', wallet, 'key_A', OTHER_WALLET)).toBe(refusal);
    const short = { ...wallet, nonce: 'n_1', challenge: `sigil-connect:v2:wallet-control:key_A:${WALLET}:n_1` };
    expect(h.bindingProblem('signin', short, 'key_A', WALLET)).toBe(refusal);
  });
});

describe('a signed sign-in is sent only if it is the one the page asked for', () => {
  const message = (domain: string, address: string, nonceLine: string) =>
    new TextEncoder().encode(
      `${domain} wants you to sign in with your Solana account:\n${address}\n\nSign in to key_A with Sigil.\n\n` +
        `URI: https://${domain}\nVersion: 1\n${nonceLine}Issued At: 2026-03-01T12:00:00.000Z`,
    );

  it('another site, another account, text before the header without an envelope', () => {
    const refusal = 'the wallet signed a sign-in for another site or account';
    expect(h.signInProblem(message('evil.example', WALLET, `Nonce: ${nonce}\n`), 'sigil.example', WALLET, nonce)).toBe(
      refusal,
    );
    expect(
      h.signInProblem(message('sigil.example', OTHER_WALLET, `Nonce: ${nonce}\n`), 'sigil.example', WALLET, nonce),
    ).toBe(refusal);
    const prefixed = new Uint8Array([...new TextEncoder().encode('x\n'), ...message('sigil.example', WALLET, '')]);
    expect(h.signInProblem(prefixed, 'sigil.example', WALLET, nonce)).toBe(refusal);
  });

  it('no Nonce line, or another nonce', () => {
    const refusal = 'the wallet signed a sign-in without this sign-in\u2019s nonce';
    expect(h.signInProblem(message('sigil.example', WALLET, ''), 'sigil.example', WALLET, nonce)).toBe(refusal);
    expect(
      h.signInProblem(message('sigil.example', WALLET, 'Nonce: other123456\n'), 'sigil.example', WALLET, nonce),
    ).toBe(refusal);
  });
});

describe('escaping', () => {
  it('a hostile client name and scope are text in the page and cannot close the script', () => {
    const hostile = '</script><img src=x onerror=alert(1)><!--';
    const html = signInPage({ uid: 'u1', clientId: 'key_A', clientName: hostile, scopes: ['openid', '<b>x</b>'] });
    expect(html).toContain('<h1>Sign in to &lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;&lt;!--</h1>');
    expect(html).toContain('<li><code>&lt;b&gt;x&lt;/b&gt;</code></li>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<!--');
    expect(html.match(/<\/script/g)).toHaveLength(1);
    expect(html).toContain(
      '"statement":"Sign in to \\u003c/script>\\u003cimg src=x onerror=alert(1)>\\u003c!-- (key_A)',
    );
  });
});

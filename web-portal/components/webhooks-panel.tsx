'use client';
// Pay webhooks: list and register. They are managed with one of the account's API keys (the service's pay-webhook
// routes are keyed, and a registration challenge names the key), which the portal keeps in an httpOnly cookie.
// Registration: the challenge message is shown first; then the signed-in wallet signs it in the browser.
import { useEffect, useRef, useState, type FormEvent, type RefObject } from 'react';
import Link from 'next/link';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@sigil/server/router';
import { PAY_EVENT_TYPES } from '@sigil/contract/webhooks';
import { base58 } from '@scure/base';
import { errorText, trpc } from '../lib/trpc';
import { availableWallets } from '../lib/wallet';
import { EndpointUrlField, ManagingKey, SecretOnce, useWebhookList, WebhookTable } from './webhook-parts';
import { useSession } from './session';
import { RequireSession } from './sign-in';
import { useWebhookKey, type WebhookKeyState } from './webhook-key';

type Outputs = inferRouterOutputs<AppRouter>;
type Created = Outputs['payWebhooks']['register'];
type Challenge = Outputs['payWebhooks']['challenge'];

export function WebhooksPanel() {
  return (
    <RequireSession purpose="register and manage the webhooks of your account">
      <WithKey>{(key) => <Webhooks webhookKey={key} />}</WithKey>
    </RequireSession>
  );
}

/** Asks for the API key the webhook pages use, when the portal holds none yet. */
export function WithKey({ children }: { children: (key: WebhookKeyState) => React.ReactNode }) {
  const key = useWebhookKey();
  const [secret, setSecret] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  if (key.prefix === undefined) return <p aria-live="polite">Loading…</p>;
  if (key.prefix === null) {
    return (
      <section aria-labelledby="webhook-key-heading">
        <h2 id="webhook-key-heading">Choose the API key for webhooks</h2>
        <p>
          Webhooks belong to your account and are managed with one of its API keys. Paste a key&rsquo;s secret (the
          portal keeps it for this browser session only, out of reach of page scripts), or{' '}
          <Link href="/keys">create a key</Link> and choose &ldquo;Use this key for webhooks&rdquo;.
        </p>
        <form
          className="inline"
          onSubmit={async (e) => {
            e.preventDefault();
            setError('');
            setBusy(true);
            try {
              await key.use(secret.trim());
              setSecret('');
            } catch (err) {
              setError(errorText(err));
            } finally {
              setBusy(false);
            }
          }}
        >
          <label>
            API key secret
            <input
              type="password"
              value={secret}
              onChange={(e) => setSecret(e.target.value)}
              autoComplete="off"
              placeholder="sigil_sk_…"
              required
            />
          </label>
          <button type="submit" disabled={busy}>
            {busy ? 'Checking…' : 'Use this key'}
          </button>
        </form>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
      </section>
    );
  }
  return <>{children(key)}</>;
}

function Webhooks({ webhookKey }: { webhookKey: WebhookKeyState }) {
  const { webhooks, error, refresh } = useWebhookList('pay');
  return (
    <>
      <ManagingKey webhookKey={webhookKey} />
      <WebhookTable stream="pay" webhooks={webhooks} error={error} empty="No webhooks yet: register one below." />
      <Register onRegistered={refresh} />
    </>
  );
}

function Register({ onRegistered }: { onRegistered: () => Promise<void> }) {
  const { session } = useSession();
  const [url, setUrl] = useState('');
  const [scope, setScope] = useState(session?.address ?? '');
  const [description, setDescription] = useState('');
  const [types, setTypes] = useState<string[]>([]);
  const [challenge, setChallenge] = useState<Challenge | null>(null);
  const [created, setCreated] = useState<Created | null>(null);
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const messageRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (challenge) messageRef.current?.focus();
  }, [challenge]);

  async function requestChallenge(event: FormEvent) {
    event.preventDefault();
    setError('');
    setCreated(null);
    setBusy(true);
    try {
      setChallenge(
        await trpc.payWebhooks.challenge.mutate({
          scope: scope.trim(),
          wallet: session!.address,
          url: url.trim(),
          ...(types.length > 0 ? { event_types: types } : {}),
          ...(description.trim() ? { description: description.trim() } : {}),
        }),
      );
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  async function signAndRegister() {
    if (!challenge || !session) return;
    setError('');
    setBusy(true);
    try {
      // The wallet the session was signed in with: the one whose signature the scope needs.
      let signed: Uint8Array | undefined;
      for (const wallet of availableWallets().filter((w) => w.can.message)) {
        setStatus(`Asking ${wallet.name} to sign…`);
        if ((await wallet.connect()) !== session.address) continue;
        signed = await wallet.signMessage(new TextEncoder().encode(challenge.message));
        break;
      }
      if (!signed) throw new Error(`no wallet in this browser holds ${session.address} and can sign messages`);
      setStatus('Registering…');
      setCreated(await trpc.payWebhooks.register.mutate({ nonce: challenge.nonce, signature: base58.encode(signed) }));
      setChallenge(null);
      setUrl('');
      setDescription('');
      await onRegistered();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setStatus('');
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="register-heading">
      <h2 id="register-heading">Register a webhook</h2>
      <RegisterForm
        url={url}
        setUrl={setUrl}
        scope={scope}
        setScope={setScope}
        description={description}
        setDescription={setDescription}
        types={types}
        setTypes={setTypes}
        busy={busy}
        requestChallenge={requestChallenge}
      />
      {challenge && (
        <SignChallenge
          challenge={challenge}
          messageRef={messageRef}
          busy={busy}
          sign={() => void signAndRegister()}
          cancel={() => setChallenge(null)}
        />
      )}
      <p aria-live="polite" className="hint">
        {status}
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {created && (
        <SecretOnce heading="Webhook registered" secret={created.secret} testId="webhook-secret">
          <p>
            <Link href={`/webhooks/${created.id}`}>Open the webhook →</Link>
          </p>
        </SecretOnce>
      )}
    </section>
  );
}

/** The webhook to register: endpoint, scope, description and events; submitting asks for the message to sign. */
function RegisterForm({
  url,
  setUrl,
  scope,
  setScope,
  description,
  setDescription,
  types,
  setTypes,
  busy,
  requestChallenge,
}: {
  url: string;
  setUrl: (url: string) => void;
  scope: string;
  setScope: (scope: string) => void;
  description: string;
  setDescription: (description: string) => void;
  types: string[];
  setTypes: (types: string[]) => void;
  busy: boolean;
  requestChallenge: (event: FormEvent) => Promise<void>;
}) {
  return (
    <form className="stack" onSubmit={requestChallenge}>
      <EndpointUrlField value={url} onChange={setUrl} />
      <label>
        Scope: your wallet, or an @name you control
        <input type="text" value={scope} onChange={(e) => setScope(e.target.value)} required spellCheck={false} />
      </label>
      <label>
        Description (optional)
        <input type="text" value={description} maxLength={200} onChange={(e) => setDescription(e.target.value)} />
      </label>
      <fieldset>
        <legend>Events (none checked: all)</legend>
        {PAY_EVENT_TYPES.map((t) => (
          <label key={t} className="choice">
            <input
              type="checkbox"
              checked={types.includes(t)}
              onChange={(e) => setTypes(e.target.checked ? [...types, t] : types.filter((x) => x !== t))}
            />
            <span className="mono">{t}</span>
          </label>
        ))}
      </fieldset>
      <p>
        <button type="submit" disabled={busy}>
          Continue: show the message to sign
        </button>
      </p>
    </form>
  );
}

/** The message the wallet signs to prove it controls the scope. */
function SignChallenge({
  challenge,
  messageRef,
  busy,
  sign,
  cancel,
}: {
  challenge: Challenge;
  messageRef: RefObject<HTMLDivElement | null>;
  busy: boolean;
  sign: () => void;
  cancel: () => void;
}) {
  return (
    <div className="callout" tabIndex={-1} ref={messageRef} aria-labelledby="challenge-heading">
      <h3 id="challenge-heading">Your wallet will sign this message</h3>
      <pre data-testid="challenge-message">{challenge.message}</pre>
      <p className="hint">It expires at {new Date(challenge.expires_at * 1000).toLocaleTimeString()}.</p>
      <button type="button" onClick={sign} disabled={busy}>
        Sign with your wallet and register
      </button>{' '}
      <button type="button" className="secondary" onClick={cancel}>
        Cancel
      </button>
    </div>
  );
}

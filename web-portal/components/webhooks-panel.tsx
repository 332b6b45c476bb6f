'use client';
// Pay webhooks: list and register, through the signed-in session and one of the wallet's keys (owner-key.tsx; a
// registration challenge names the key). Registration: the challenge message is shown first; then the signed-in
// wallet signs it in the browser (wallet-sign.ts).
import { useEffect, useRef, useState, type FormEvent, type RefObject } from 'react';
import Link from 'next/link';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@sigil/server/router';
import { errorText, trpc } from '../lib/trpc';
import { EndpointUrlField, PayEventChoices, SecretOnce, useWebhookList, WebhookTable } from './webhook-parts';
import { useSession } from './session';
import { RequireSession } from './sign-in';
import { useOwnerKey, WithOwnerKey } from './owner-key';
import { signWithSessionWallet } from './wallet-sign';
import { ErrorNotice } from './notice';

type Outputs = inferRouterOutputs<AppRouter>['ownerWebhooks'];
type Created = Outputs['payRegister'];
export type Challenge = Outputs['payChallenge'];

export function WebhooksPanel() {
  return (
    <RequireSession purpose="register and manage the webhooks of your account">
      <WithOwnerKey>
        <Webhooks />
      </WithOwnerKey>
    </RequireSession>
  );
}

function Webhooks() {
  const { webhooks, error, refresh } = useWebhookList('pay');
  return (
    <>
      <p className="hint">
        <Link href="/webhooks/events">The event catalog</Link>: every event type with an example payload.
      </p>
      <WebhookTable stream="pay" webhooks={webhooks} error={error} empty="No webhooks yet: register one below." />
      <Register onRegistered={refresh} />
    </>
  );
}

function Register({ onRegistered }: { onRegistered: () => Promise<void> }) {
  const { session } = useSession();
  const keyId = useOwnerKey();
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
        await trpc.ownerWebhooks.payChallenge.mutate({
          id: keyId,
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
      const signature = await signWithSessionWallet(session.address, challenge.message, setStatus);
      setStatus('Registering…');
      setCreated(await trpc.ownerWebhooks.payRegister.mutate({ id: keyId, nonce: challenge.nonce, signature }));
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
      <ErrorNotice>{error}</ErrorNotice>
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
      <PayEventChoices types={types} setTypes={setTypes} />
      <p>
        <button type="submit" disabled={busy}>
          Continue: show the message to sign
        </button>
      </p>
    </form>
  );
}

/** The message the wallet signs to prove it controls the scope. */
export function SignChallenge({
  challenge,
  messageRef,
  busy,
  sign,
  cancel,
  then = 'register',
}: {
  challenge: Challenge;
  messageRef: RefObject<HTMLDivElement | null>;
  busy: boolean;
  sign: () => void;
  cancel: () => void;
  /** What signing does next (the button's words after "Sign with your wallet and "). */
  then?: string;
}) {
  return (
    <div className="callout" tabIndex={-1} ref={messageRef} aria-labelledby="challenge-heading">
      <h3 id="challenge-heading">Your wallet will sign this message</h3>
      <pre data-testid="challenge-message">{challenge.message}</pre>
      <p className="hint">It expires at {new Date(challenge.expires_at * 1000).toLocaleTimeString()}.</p>
      <button type="button" onClick={sign} disabled={busy}>
        Sign with your wallet and {then}
      </button>{' '}
      <button type="button" className="secondary" onClick={cancel}>
        Cancel
      </button>
    </div>
  );
}

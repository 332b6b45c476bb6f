'use client';
// Editing a webhook: description and event types need no proof (the session is the owner's); a new URL does, for a
// pay webhook, exactly as registration: the service's challenge for that URL is shown, the signed-in wallet signs
// it, and the signature goes with the change. An identity webhook's URL is only vetted (it was created without one).
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { errorText } from '../lib/trpc';
import { useSession } from './session';
import { EndpointUrlField, PayEventChoices } from './webhook-parts';
import { SignChallenge, type Challenge } from './webhooks-panel';
import { signWithSessionWallet } from './wallet-sign';
import type { StreamApi, WebhookView } from './webhook-streams';
import { ErrorNotice } from './notice';

type Act = <T>(what: string, run: () => Promise<T>) => Promise<void>;

export function EditWebhook({
  api,
  webhook,
  busy,
  act,
}: {
  api: StreamApi;
  webhook: WebhookView;
  busy: boolean;
  act: Act;
}) {
  return (
    <section aria-labelledby="edit-heading">
      <h2 id="edit-heading">Edit</h2>
      <EditFields api={api} webhook={webhook} busy={busy} act={act} />
      <ChangeUrl api={api} webhook={webhook} busy={busy} act={act} />
    </section>
  );
}

function EditFields({ api, webhook, busy, act }: { api: StreamApi; webhook: WebhookView; busy: boolean; act: Act }) {
  const [description, setDescription] = useState(webhook.description ?? '');
  const [types, setTypes] = useState<string[]>(webhook.event_types);
  const [typeText, setTypeText] = useState(webhook.event_types.join(', '));
  const pay = webhook.stream === 'pay';
  const save = (event: FormEvent) => {
    event.preventDefault();
    const eventTypes = pay
      ? types
      : typeText
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean);
    void act('Saved.', () =>
      api.edit(webhook.id, { description: description.trim() || null, event_types: eventTypes }),
    );
  };
  return (
    <form className="stack" onSubmit={save}>
      <label>
        Description
        <input type="text" value={description} maxLength={200} onChange={(e) => setDescription(e.target.value)} />
      </label>
      {pay ? (
        <PayEventChoices types={types} setTypes={setTypes} />
      ) : (
        <label>
          Events (types or families, comma-separated; empty: all)
          <input type="text" value={typeText} onChange={(e) => setTypeText(e.target.value)} spellCheck={false} />
        </label>
      )}
      <p>
        <button type="submit" disabled={busy}>
          Save changes
        </button>
      </p>
    </form>
  );
}

function ChangeUrl({ api, webhook, busy, act }: { api: StreamApi; webhook: WebhookView; busy: boolean; act: Act }) {
  const { session } = useSession();
  const [url, setUrl] = useState('');
  const [challenge, setChallenge] = useState<Challenge | null>(null);
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');
  const messageRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (challenge) messageRef.current?.focus();
  }, [challenge]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError('');
    if (webhook.stream !== 'pay') {
      await act('Endpoint changed.', () => api.edit(webhook.id, { url: url.trim() }));
      setUrl('');
      return;
    }
    try {
      setChallenge(await api.urlChallenge(webhook.id, url.trim()));
    } catch (err) {
      setError(errorText(err));
    }
  };
  const sign = async () => {
    if (!challenge || !session) return;
    setError('');
    let signature: string;
    try {
      signature = await signWithSessionWallet(session.address, challenge.message, setStatus);
    } catch (err) {
      setError(errorText(err));
      return;
    } finally {
      setStatus('');
    }
    await act('Endpoint changed.', () => api.edit(webhook.id, { url: url.trim(), nonce: challenge.nonce, signature }));
    setChallenge(null);
    setUrl('');
  };

  return (
    <>
      <h3>Change the endpoint</h3>
      {webhook.stream === 'pay' && (
        <p className="hint">
          Like a registration, a new endpoint needs your wallet&rsquo;s signature of a message naming it.
        </p>
      )}
      <form className="stack" onSubmit={(e) => void submit(e)}>
        <EndpointUrlField value={url} onChange={setUrl} label="New endpoint URL (HTTPS)" />
        <p>
          <button type="submit" disabled={busy}>
            {webhook.stream === 'pay' ? 'Continue: show the message to sign' : 'Change the endpoint'}
          </button>
        </p>
      </form>
      {challenge && (
        <SignChallenge
          challenge={challenge}
          messageRef={messageRef}
          busy={busy}
          sign={() => void sign()}
          cancel={() => setChallenge(null)}
          then="change the endpoint"
        />
      )}
      <p aria-live="polite" className="hint">
        {status}
      </p>
      <ErrorNotice>{error}</ErrorNotice>
    </>
  );
}

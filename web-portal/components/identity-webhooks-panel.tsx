'use client';
// Identity-event webhooks: list and create, through the signed-in session and one of the wallet's keys, as pay
// webhooks (they belong to the account), but created without a wallet signature: identity events are public chain state, so anyone may
// watch any name or wallet (docs/identity-events.md). The form offers the event families; none checked means all,
// including types the registry adds later.
import { useState, type FormEvent } from 'react';
import Link from 'next/link';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@sigil/server/router';
import { IDENTITY_EVENT_FAMILIES } from '@sigil/contract/identity-events';
import { errorText, trpc } from '../lib/trpc';
import { RequireSession } from './sign-in';
import { EndpointUrlField, SecretOnce, useWebhookList, WebhookTable } from './webhook-parts';
import { useOwnerKey, WithOwnerKey } from './owner-key';
import { ErrorNotice } from './notice';

type Created = inferRouterOutputs<AppRouter>['ownerWebhooks']['identityCreate'];

export function IdentityWebhooksPanel() {
  return (
    <RequireSession purpose="create and manage the identity webhooks of your account">
      <WithOwnerKey>
        <IdentityWebhooks />
      </WithOwnerKey>
    </RequireSession>
  );
}

function IdentityWebhooks() {
  const { webhooks, error, refresh } = useWebhookList('identity');
  return (
    <>
      <WebhookTable
        stream="identity"
        webhooks={webhooks}
        error={error}
        empty="No identity webhooks yet: create one below."
      />
      <Create onCreated={refresh} />
    </>
  );
}

function Create({ onCreated }: { onCreated: () => Promise<void> }) {
  const keyId = useOwnerKey();
  const [url, setUrl] = useState('');
  const [scope, setScope] = useState('');
  const [description, setDescription] = useState('');
  const [families, setFamilies] = useState<string[]>([]);
  const [created, setCreated] = useState<Created | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  async function create(event: FormEvent) {
    event.preventDefault();
    setError('');
    setCreated(null);
    setBusy(true);
    try {
      setCreated(
        await trpc.ownerWebhooks.identityCreate.mutate({
          id: keyId,
          scope: scope.trim(),
          url: url.trim(),
          ...(families.length > 0 ? { event_types: families.map((f) => `${f}.*`) } : {}),
          ...(description.trim() ? { description: description.trim() } : {}),
        }),
      );
      setUrl('');
      setDescription('');
      await onCreated();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="create-heading">
      <h2 id="create-heading">Create an identity webhook</h2>
      <form className="stack" onSubmit={create}>
        <EndpointUrlField value={url} onChange={setUrl} />
        <label>
          Scope: an @name, a wallet address, or * (the whole registry, partner keys)
          <input
            type="text"
            value={scope}
            onChange={(e) => setScope(e.target.value)}
            placeholder="@alice"
            required
            spellCheck={false}
          />
        </label>
        <label>
          Description (optional)
          <input type="text" value={description} maxLength={200} onChange={(e) => setDescription(e.target.value)} />
        </label>
        <fieldset>
          <legend>Event families (none checked: all, including types added later)</legend>
          {IDENTITY_EVENT_FAMILIES.map((f) => (
            <label key={f} className="choice">
              <input
                type="checkbox"
                checked={families.includes(f)}
                onChange={(e) => setFamilies(e.target.checked ? [...families, f] : families.filter((x) => x !== f))}
              />
              <span className="mono">{f}.*</span>
            </label>
          ))}
        </fieldset>
        <p>
          <button type="submit" disabled={busy}>
            {busy ? 'Creating…' : 'Create webhook'}
          </button>
        </p>
      </form>
      <ErrorNotice>{error}</ErrorNotice>
      {created && (
        <SecretOnce heading="Identity webhook created" secret={created.secret} testId="webhook-secret">
          <p className="hint">
            It receives events from sequence {created.from_sequence} on; earlier ones are in the log.
          </p>
          <p>
            <Link href={`/identity/webhooks/${created.id}`}>Open the webhook →</Link>
          </p>
        </SecretOnce>
      )}
    </section>
  );
}

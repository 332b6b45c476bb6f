'use client';
import { useCallback, useEffect, useRef, useState, type FormEvent, type ReactNode, type RefObject } from 'react';
import Link from 'next/link';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@sigil/server/router';
import { counted } from '../lib/plural';
import { trpc } from '../lib/trpc';
import { useApiBase } from './portal-config';
import { useSession, useShowError } from './session';
import { RequireSession } from './sign-in';
import { CopyButton } from './copy-button';
import { useWebhookKey } from './webhook-key';
import { ErrorNotice, StatusNotice } from './notice';

type Outputs = inferRouterOutputs<AppRouter>;
type KeyRow = Outputs['keys']['list']['keys'][number];
type Usage = Outputs['keys']['usage'];
type Created = Outputs['keys']['create'];

const when = (ms: number | null) => (ms === null ? '—' : new Date(ms).toLocaleString());

export function KeysPanel() {
  return (
    <RequireSession purpose="create, list, rename and revoke the API keys of your account">
      <SignedIn />
    </RequireSession>
  );
}

function Account() {
  const { session, signOut } = useSession();
  if (!session) return null;
  return (
    <section aria-labelledby="account-heading">
      <h2 id="account-heading">Account</h2>
      <dl className="result">
        <dt>Wallet</dt>
        <dd className="mono">{session.address}</dd>
        <dt>Handle</dt>
        <dd>{session.handle ? `@${session.handle}` : 'none (signed in with the wallet address)'}</dd>
        <dt>Proof</dt>
        <dd>
          {session.source}
          {session.verified.length > 0 ? `; attestations: ${session.verified.join(', ')}` : ''}
        </dd>
      </dl>
      <p>
        <button type="button" className="secondary" onClick={() => void signOut()}>
          Sign out
        </button>
      </p>
    </section>
  );
}

function SignedIn() {
  const webhookKey = useWebhookKey();
  const [keys, setKeys] = useState<KeyRow[] | null>(null);
  const [usage, setUsage] = useState<Usage | null>(null);
  const [created, setCreated] = useState<Created | null>(null);
  const [name, setName] = useState('');
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);
  const [renaming, setRenaming] = useState<string | null>(null);
  const secretRef = useRef<HTMLDivElement>(null);
  const listHeadingRef = useRef<HTMLHeadingElement>(null);

  const fail = useShowError(setError);

  const refresh = useCallback(async () => {
    try {
      const [list, totals] = await Promise.all([trpc.keys.list.query({}), trpc.keys.usage.query({})]);
      setKeys(list.keys);
      setUsage(totals);
    } catch (err) {
      fail(err);
    }
  }, [fail]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  // The one-time secret takes the focus when it appears, so a screen reader announces it first.
  useEffect(() => {
    if (created) secretRef.current?.focus();
  }, [created]);

  async function create(event: FormEvent) {
    event.preventDefault();
    setError('');
    setNotice('');
    setBusy(true);
    try {
      setCreated(await trpc.keys.create.mutate(name.trim() ? { name: name.trim() } : {}));
      setName('');
      await refresh();
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  }

  async function revoke(key: KeyRow) {
    if (!window.confirm(`Revoke ${key.name ?? key.id}? Requests with this key will fail at once.`)) return;
    setError('');
    try {
      await trpc.keys.revoke.mutate({ id: key.id });
      if (created?.key.id === key.id) setCreated(null);
      await refresh();
      setNotice(`Revoked ${key.name ?? key.id}.`);
      listHeadingRef.current?.focus();
    } catch (err) {
      fail(err);
    }
  }

  async function rename(key: KeyRow, next: string) {
    setError('');
    try {
      await trpc.keys.rename.mutate({ id: key.id, name: next.trim() ? next.trim() : null });
      setRenaming(null);
      await refresh();
      setNotice(`Renamed ${key.id}.`);
    } catch (err) {
      fail(err);
    }
  }

  return (
    <>
      <Account />
      <ErrorNotice>{error}</ErrorNotice>
      <StatusNotice>{notice}</StatusNotice>

      <CreateKey name={name} setName={setName} busy={busy} create={create}>
        {created && (
          <NewSecret
            created={created}
            secretRef={secretRef}
            forWebhooks={() =>
              void webhookKey.use(created.secret).then(() => setNotice('The event log will use this key.'))
            }
            dismiss={() => setCreated(null)}
          />
        )}
      </CreateKey>

      <KeyList
        keys={keys}
        headingRef={listHeadingRef}
        renaming={renaming}
        setRenaming={setRenaming}
        rename={(key, next) => void rename(key, next)}
        revoke={(key) => void revoke(key)}
      />

      {usage && <UsageNow usage={usage} />}
    </>
  );
}

/** The create form; the new key's secret shows below it. */
function CreateKey({
  name,
  setName,
  busy,
  create,
  children,
}: {
  name: string;
  setName: (name: string) => void;
  busy: boolean;
  create: (event: FormEvent) => Promise<void>;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby="create-heading">
      <h2 id="create-heading">Create a key</h2>
      <form className="inline" onSubmit={create}>
        <label>
          Label (optional)
          <input
            type="text"
            value={name}
            maxLength={64}
            onChange={(e) => setName(e.target.value)}
            placeholder="production backend"
          />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create key'}
        </button>
      </form>
      {children}
    </section>
  );
}

/** The new key's secret, shown once, with a curl line to try it. */
function NewSecret({
  created,
  secretRef,
  forWebhooks,
  dismiss,
}: {
  created: Created;
  secretRef: RefObject<HTMLDivElement | null>;
  forWebhooks: () => void;
  dismiss: () => void;
}) {
  const apiBase = useApiBase();
  const curl = `curl -s -H 'X-API-Key: ${created.secret}' ${apiBase}/v1/resolve/alice`;
  return (
    <div className="secret" tabIndex={-1} ref={secretRef} aria-labelledby="secret-heading">
      <h3 id="secret-heading">Your new key {created.key.name ? `“${created.key.name}”` : created.key.id}</h3>
      <p>
        <strong>Copy this secret now: it is shown only once.</strong> Send it as the <code>X-API-Key</code> header from
        your server.
      </p>
      <p>
        <code data-testid="new-secret">{created.secret}</code> <CopyButton text={created.secret} label="secret" />
      </p>
      <p>Try it:</p>
      <pre>
        <code data-testid="curl-line">{curl}</code>
      </pre>
      <p>
        <CopyButton text={curl} label="curl command" />{' '}
        <button type="button" className="secondary" onClick={forWebhooks}>
          Use this key for the event log
        </button>{' '}
        <button type="button" className="secondary" onClick={dismiss}>
          I have saved it
        </button>
      </p>
    </div>
  );
}

/** The account's keys, the revoked ones on demand, each with its usage link, rename and revoke. */
function KeyList({
  keys,
  headingRef,
  renaming,
  setRenaming,
  rename,
  revoke,
}: {
  keys: KeyRow[] | null;
  headingRef: RefObject<HTMLHeadingElement | null>;
  renaming: string | null;
  setRenaming: (id: string | null) => void;
  rename: (key: KeyRow, next: string) => void;
  revoke: (key: KeyRow) => void;
}) {
  const [showRevoked, setShowRevoked] = useState(false);
  const visible = keys?.filter((k) => showRevoked || k.revoked_at === null) ?? null;
  const revokedCount = keys?.filter((k) => k.revoked_at !== null).length ?? 0;
  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading" tabIndex={-1} ref={headingRef}>
        Your keys
      </h2>
      <label className="choice">
        <input type="checkbox" checked={showRevoked} onChange={(e) => setShowRevoked(e.target.checked)} />
        Show revoked keys ({revokedCount})
      </label>
      {visible === null ? (
        <p aria-live="polite">Loading your keys…</p>
      ) : visible.length === 0 ? (
        <p>{keys!.length === 0 ? 'No keys yet: create your first one above.' : 'No active keys.'}</p>
      ) : (
        <div className="scroll">
          <table className="stacked">
            <caption className="hint">Newest first. Requests counted in the current minute and UTC day.</caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Tier</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Minute / day</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {visible.map((key) => (
                <tr key={key.id} data-key-id={key.id}>
                  <td data-label="Key">
                    {renaming === key.id ? (
                      <RenameForm
                        current={key.name ?? ''}
                        onSave={(next) => rename(key, next)}
                        onCancel={() => setRenaming(null)}
                      />
                    ) : (
                      <>{key.name ?? <em>unnamed</em>}</>
                    )}
                    <br />
                    <span className="mono">{key.id}</span>
                    <br />
                    <span className="mono hint">{key.prefix}…</span>
                  </td>
                  <td data-label="Tier">{key.tier}</td>
                  <td data-label="Created">{when(key.created_at)}</td>
                  <td data-label="Last used">{when(key.last_used_at)}</td>
                  <td data-label="Minute / day">
                    {key.usage.minute} / {key.usage.day}
                  </td>
                  <td data-label="Actions" className="actions">
                    <Link href={`/usage?key=${encodeURIComponent(key.id)}`}>
                      Usage<span className="visually-hidden"> of {key.name ?? key.id}</span>
                    </Link>
                    {key.revoked_at === null ? (
                      <>
                        <Link href={`/keys/${encodeURIComponent(key.id)}/oidc`}>
                          OpenID Connect<span className="visually-hidden"> of {key.name ?? key.id}</span>
                        </Link>
                        <Link href={`/keys/${encodeURIComponent(key.id)}/sessions`}>
                          Sessions<span className="visually-hidden"> of {key.name ?? key.id}</span>
                        </Link>
                        <button
                          type="button"
                          className="secondary"
                          onClick={() => setRenaming(key.id)}
                          aria-label={`Rename ${key.name ?? key.id}`}
                        >
                          Rename
                        </button>
                        <button
                          type="button"
                          className="secondary danger"
                          onClick={() => revoke(key)}
                          aria-label={`Revoke ${key.name ?? key.id}`}
                        >
                          Revoke
                        </button>
                      </>
                    ) : (
                      <span>revoked {when(key.revoked_at)}</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function UsageNow({ usage }: { usage: Usage }) {
  return (
    <section aria-labelledby="usage-heading">
      <h2 id="usage-heading">Usage now</h2>
      <dl className="result">
        <dt>Tier</dt>
        <dd>{usage.tier}</dd>
        <dt>Limits (each key)</dt>
        <dd>
          {usage.limits.minute.toLocaleString()} per minute, {usage.limits.day.toLocaleString()} per UTC day
        </dd>
        <dt>This minute</dt>
        <dd>{counted(usage.usage.minute, 'request')}</dd>
        <dt>Today</dt>
        <dd>{counted(usage.usage.day, 'request')}</dd>
      </dl>
      <p>
        <Link href="/usage">Usage over time →</Link>
      </p>
    </section>
  );
}

function RenameForm({
  current,
  onSave,
  onCancel,
}: {
  current: string;
  onSave: (name: string) => void;
  onCancel: () => void;
}) {
  const [value, setValue] = useState(current);
  return (
    <form
      className="inline"
      onSubmit={(e) => {
        e.preventDefault();
        onSave(value);
      }}
    >
      <label>
        New label (empty clears it)
        <input type="text" value={value} maxLength={64} autoFocus onChange={(e) => setValue(e.target.value)} />
      </label>
      <button type="submit">Save</button>
      <button type="button" className="secondary" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}

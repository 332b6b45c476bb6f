'use client';
// A key's OpenID Connect client (docs/oidc.md "Clients are API keys"), through the session: register it, read it,
// the values an app's OIDC library needs (issuer, discovery, client_id, the secret once), edit it, rotate the
// secret, remove it. PUT replaces the whole registration, so an edit and a rotation send every field; the service
// vets the URIs and answers what is wrong, shown beside the form.
import { Fragment, useCallback, useEffect, useState, type FormEvent } from 'react';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@sigil/server/router';
import { OIDC_SCOPE_CLAIMS, OIDC_SCOPES } from '@sigil/contract/oidc';
import { trpc } from '../lib/trpc';
import { CopyButton } from './copy-button';
import { keyLabel, useKey } from './key-pages';
import { useShowError } from './session';
import { SecretOnce } from './webhook-parts';
import { ErrorNotice, StatusNotice } from './notice';

type Client = inferRouterOutputs<AppRouter>['oidc']['listClients']['clients'][number];
type Registration = Omit<inferRouterInputs<AppRouter>['oidc']['putClient'], 'id' | 'rotate_secret'>;
type ClientType = Registration['type'];
type Scope = (typeof OIDC_SCOPES)[number];

const when = (ms: number) => new Date(ms).toLocaleString();

/** What each scope releases, as the form lists it. */
const SCOPE_HINTS: Record<Scope, string> = {
  openid: `always: ${OIDC_SCOPE_CLAIMS.openid.join(', ')}`,
  offline_access: 'refresh tokens (asked with prompt=consent)',
  profile: OIDC_SCOPE_CLAIMS.profile.join(', '),
  wallet: OIDC_SCOPE_CLAIMS.wallet.join(', '),
  attestations: OIDC_SCOPE_CLAIMS.attestations.join(', '),
};

const TYPES: Record<ClientType, { label: string; hint: string; auth: string }> = {
  confidential: {
    label: 'Confidential: a server that keeps a client secret',
    hint: 'client_secret_basic; the secret is shown once',
    auth: 'client_secret_basic (client secret)',
  },
  public: {
    label: 'Public: a browser or mobile app',
    hint: 'PKCE only, no secret',
    auth: 'none (PKCE only)',
  },
};

const registrationOf = (client: Client): Registration => ({
  type: client.type,
  redirect_uris: client.redirect_uris,
  post_logout_redirect_uris: client.post_logout_redirect_uris,
  scopes: client.scopes as Scope[],
  backchannel_logout_uri: client.backchannel_logout_uri,
});

export function OidcClientPanel() {
  const key = useKey();
  // undefined while loading, null when the key has no registration.
  const [client, setClient] = useState<Client | null | undefined>(undefined);
  const [secret, setSecret] = useState<string | null>(null);
  const [loadError, setLoadError] = useState('');
  const [notice, setNotice] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  // Where the focus goes once the view it belongs to has rendered (the control that had it is gone).
  const [focus, setFocus] = useState<string | null>(null);
  const showLoadError = useShowError(setLoadError);
  const fail = useShowError(setError);

  // Read from the account's list: a key that is no client is a state of the page, not a failed request.
  useEffect(() => {
    trpc.oidc.listClients
      .query({})
      .then(({ clients }) => setClient(clients.find((c) => c.client_id === key.id) ?? null))
      .catch(showLoadError);
  }, [key.id, showLoadError]);

  useEffect(() => {
    if (!focus) return;
    document.getElementById(focus)?.focus();
    setFocus(null);
  }, [focus]);

  /** PUT: the new registration, and its secret when the service issued one. Errors go to the caller. */
  const put = useCallback(
    async (registration: Registration, rotate = false) => {
      const saved = await trpc.oidc.putClient.mutate({ id: key.id, ...registration, rotate_secret: rotate });
      setClient(saved.client);
      if (saved.client_secret) setSecret(saved.client_secret);
      return saved;
    },
    [key.id],
  );

  async function act(what: string, run: () => Promise<unknown>) {
    setError('');
    setNotice('');
    setBusy(true);
    try {
      await run();
      setNotice(what);
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  }

  if (loadError) return <ErrorNotice>{loadError}</ErrorNotice>;
  if (client === undefined) return <p aria-live="polite">Loading the client…</p>;
  const status = <StatusNotice>{notice}</StatusNotice>;
  if (client === null)
    return (
      <section aria-labelledby="register-heading">
        <h2 id="register-heading" tabIndex={-1}>
          Register this key as a client
        </h2>
        {status}
        <p>
          {keyLabel(key)} is not an OpenID Connect client yet. Register it and any stock OIDC library (Auth.js,
          openid-client, Keycloak brokering, AppAuth) signs your users in with their wallet: the client_id is the key
          id, and the sign-in page is Sigil&rsquo;s.
        </p>
        <ClientForm
          initial={null}
          submitLabel="Register the client"
          save={async (registration) => {
            setNotice('');
            const saved = await put(registration);
            setNotice('Client registered.');
            // A confidential client's secret takes the focus itself (SecretOnce).
            if (!saved.client_secret) setFocus('config-heading');
            return '';
          }}
        />
      </section>
    );

  return (
    <>
      {status}
      {secret && (
        <SecretOnce
          heading="Client secret"
          secret={secret}
          testId="client-secret"
          note={
            <>
              <strong>Copy the client secret now: it is shown only once.</strong> Keep it on your server (your OIDC
              library sends it to the token endpoint); rotate it to get a new one.
            </>
          }
        >
          <button type="button" className="secondary" onClick={() => setSecret(null)}>
            I have saved it
          </button>
        </SecretOnce>
      )}
      <AppConfig client={client} secret={secret} />
      <Settings client={client} />
      <section aria-labelledby="edit-heading">
        <h2 id="edit-heading">Edit the client</h2>
        <ClientForm
          initial={client}
          submitLabel="Save changes"
          save={async (registration) => {
            setNotice('');
            const saved = await put(registration);
            return saved.client_secret ? 'Saved: the client is confidential now; copy its secret above.' : 'Saved.';
          }}
        />
      </section>
      <section aria-labelledby="client-actions-heading">
        <h2 id="client-actions-heading">Secret and removal</h2>
        <p className="actions">
          {client.type === 'confidential' && (
            <button
              type="button"
              className="secondary"
              disabled={busy}
              onClick={() => {
                if (!window.confirm('Rotate the client secret? The current one stops working at once.')) return;
                void act('Secret rotated: copy the new one above.', () => put(registrationOf(client), true));
              }}
            >
              Rotate the client secret
            </button>
          )}
          <button
            type="button"
            className="secondary danger"
            disabled={busy}
            onClick={() => {
              if (!window.confirm('Remove the OpenID Connect client? Sign-ins through it stop at once; the key stays.'))
                return;
              void act('Client removed: the key is no OpenID Connect client any more.', async () => {
                await trpc.oidc.deleteClient.mutate({ id: key.id });
                setSecret(null);
                setClient(null);
                setFocus('register-heading');
              });
            }}
          >
            Remove the client
          </button>
        </p>
        <p className="hint">
          Removing is how a client is turned off: the provider no longer knows the client_id (the API key itself keeps
          working). Registering again issues a new secret.
        </p>
        <ErrorNotice>{error}</ErrorNotice>
      </section>
    </>
  );
}

/** The values to paste into an app's OIDC configuration, each with a copy button, and the lot as env lines. */
function AppConfig({ client, secret }: { client: Client; secret: string | null }) {
  const discovery = `${client.issuer}/.well-known/openid-configuration`;
  const env = [
    `SIGIL_ISSUER=${client.issuer}`,
    `SIGIL_CLIENT_ID=${client.client_id}`,
    ...(client.type === 'confidential'
      ? [`SIGIL_CLIENT_SECRET=${secret ?? 'sigil_cs_…   # shown once, when registered or rotated'}`]
      : []),
  ].join('\n');
  const rows = [
    { term: 'Issuer', value: client.issuer, label: 'issuer' },
    { term: 'Discovery URL', value: discovery, label: 'discovery URL' },
    { term: 'client_id', value: client.client_id, label: 'client_id' },
  ];
  return (
    <section aria-labelledby="config-heading">
      <h2 id="config-heading" tabIndex={-1}>
        Your app&rsquo;s configuration
      </h2>
      <dl className="result stack-narrow" data-testid="oidc-config">
        {rows.map((row) => (
          <Fragment key={row.term}>
            <dt>{row.term}</dt>
            <dd>
              <span className="mono">{row.value}</span> <CopyButton text={row.value} label={row.label} />
            </dd>
          </Fragment>
        ))}
        <dt>Client authentication</dt>
        <dd>{TYPES[client.type].auth}</dd>
        <dt>PKCE</dt>
        <dd>S256, required</dd>
      </dl>
      <p>As environment variables (the recipes in the OpenID Connect guide read these):</p>
      <pre>
        <code data-testid="oidc-env">{env}</code>
      </pre>
      <p>
        <CopyButton text={env} label="environment variables" />
      </p>
    </section>
  );
}

function UriList({ uris }: { uris: readonly string[] }) {
  if (uris.length === 0) return <>none</>;
  return (
    <ul className="plain">
      {uris.map((uri) => (
        <li key={uri} className="mono">
          {uri}
        </li>
      ))}
    </ul>
  );
}

function Settings({ client }: { client: Client }) {
  return (
    <section aria-labelledby="settings-heading">
      <h2 id="settings-heading">Client settings</h2>
      <dl className="result stack-narrow" data-testid="oidc-settings">
        <dt>Type</dt>
        <dd data-testid="oidc-type">{client.type}</dd>
        <dt>Redirect URIs</dt>
        <dd data-testid="oidc-redirect-uris">
          <UriList uris={client.redirect_uris} />
        </dd>
        <dt>Allowed scopes</dt>
        <dd className="mono">{client.scopes.join(' ')}</dd>
        <dt>Post-logout redirect URIs</dt>
        <dd>
          <UriList uris={client.post_logout_redirect_uris} />
        </dd>
        <dt>Back-channel logout</dt>
        <dd className={client.backchannel_logout_uri ? 'mono' : undefined}>
          {client.backchannel_logout_uri ?? 'none'}
        </dd>
        <dt>Registered</dt>
        <dd>{when(client.created_at)}</dd>
        <dt>Updated</dt>
        <dd>{when(client.updated_at)}</dd>
      </dl>
    </section>
  );
}

/** The URIs typed one per line (no URI holds whitespace, so any whitespace separates them). */
const uris = (text: string) => text.split(/\s+/).filter(Boolean);

/** Register or edit: every field of the registration; the service's refusal shows under the button. */
function ClientForm({
  initial,
  submitLabel,
  save,
}: {
  initial: Client | null;
  submitLabel: string;
  save: (registration: Registration) => Promise<string>;
}) {
  const [type, setType] = useState<ClientType>(initial?.type ?? 'confidential');
  const [redirects, setRedirects] = useState(initial?.redirect_uris.join('\n') ?? '');
  const [scopes, setScopes] = useState<Scope[]>((initial?.scopes as Scope[] | undefined) ?? [...OIDC_SCOPES]);
  const [logoutRedirects, setLogoutRedirects] = useState(initial?.post_logout_redirect_uris.join('\n') ?? '');
  const [backchannel, setBackchannel] = useState(initial?.backchannel_logout_uri ?? '');
  const [notice, setNotice] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const fail = useShowError(setError);
  const formId = initial ? 'edit' : 'register';

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError('');
    setNotice('');
    setBusy(true);
    try {
      setNotice(
        await save({
          type,
          redirect_uris: uris(redirects),
          post_logout_redirect_uris: uris(logoutRedirects),
          scopes,
          backchannel_logout_uri: backchannel.trim() || null,
        }),
      );
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="stack" onSubmit={(e) => void submit(e)} aria-describedby={`${formId}-rules`}>
      <p className="hint" id={`${formId}-rules`}>
        URIs are matched exactly. Each is https, or http only on 127.0.0.1, localhost or [::1]; no fragment, no user or
        password. Up to 10 of each kind.
      </p>
      <fieldset>
        <legend>Client type</legend>
        {(Object.keys(TYPES) as ClientType[]).map((t) => (
          <label key={t} className="choice">
            <input type="radio" name={`${formId}-type`} value={t} checked={type === t} onChange={() => setType(t)} />
            <span>
              {TYPES[t].label}
              <span className="hint block">{TYPES[t].hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <label className="wide">
        Redirect URIs (one per line)
        <textarea
          value={redirects}
          rows={3}
          required
          spellCheck={false}
          onChange={(e) => setRedirects(e.target.value)}
          placeholder="https://app.example/api/auth/callback/sigil"
        />
      </label>
      <fieldset>
        <legend>Allowed scopes</legend>
        {OIDC_SCOPES.map((scope) => (
          <label key={scope} className="choice">
            <input
              type="checkbox"
              checked={scope === 'openid' || scopes.includes(scope)}
              disabled={scope === 'openid'}
              onChange={(e) => setScopes(e.target.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))}
            />
            <span>
              <span className="mono">{scope}</span>
              <span className="hint block">{SCOPE_HINTS[scope]}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <label className="wide">
        Post-logout redirect URIs (optional, one per line)
        <textarea
          value={logoutRedirects}
          rows={2}
          spellCheck={false}
          onChange={(e) => setLogoutRedirects(e.target.value)}
          placeholder="https://app.example/"
        />
      </label>
      <label>
        Back-channel logout URI (optional, HTTPS)
        <input
          type="url"
          value={backchannel}
          spellCheck={false}
          onChange={(e) => setBackchannel(e.target.value)}
          placeholder="https://app.example/api/auth/backchannel-logout"
        />
      </label>
      <p>
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
      </p>
      <StatusNotice>{notice}</StatusNotice>
      <ErrorNotice>{error}</ErrorNotice>
    </form>
  );
}

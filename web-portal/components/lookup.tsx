'use client';
import { useState, type FormEvent } from 'react';
import { isBase58Address } from '@sigil/contract/names';
import { errorText, trpc } from '../lib/trpc';

type Outcome =
  | {
      kind: 'resolution';
      input: string;
      name: string;
      namespace: string;
      owner: string;
      tokenized: boolean;
      verification: string;
    }
  | { kind: 'reverse'; input: string; address: string; handle: string }
  | { kind: 'error'; query: string; text: string };

export function Lookup() {
  const [query, setQuery] = useState('');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    const value = query.trim();
    if (!value) return;
    setBusy(true);
    try {
      // The service's own rule for a wallet (32 bytes in base58); `@…` is always a name.
      if (!value.startsWith('@') && isBase58Address(value)) {
        setOutcome({ kind: 'reverse', ...(await trpc.resolve.reverse.query({ address: value })) });
      } else {
        setOutcome({ kind: 'resolution', ...(await trpc.resolve.resolve.query({ name: value })) });
      }
    } catch (err) {
      setOutcome({ kind: 'error', query: value, text: errorText(err) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <form className="inline" onSubmit={onSubmit} role="search">
        <label>
          Name or wallet address
          <input
            type="text"
            name="q"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            autoComplete="off"
            spellCheck={false}
            required
          />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Looking up…' : 'Look up'}
        </button>
      </form>
      <section aria-live="polite">{outcome && <OutcomeView outcome={outcome} />}</section>
    </>
  );
}

function OutcomeView({ outcome }: { outcome: Outcome }) {
  if (outcome.kind === 'error') {
    return (
      <p className="error" role="alert">
        <span className="mono">{outcome.query}</span>: {outcome.text}
      </p>
    );
  }
  if (outcome.kind === 'reverse') {
    return (
      <dl className="result">
        <dt>Wallet</dt>
        <dd className="mono">{outcome.address}</dd>
        <dt>Primary handle</dt>
        <dd>@{outcome.handle}</dd>
      </dl>
    );
  }
  return (
    <dl className="result">
      <dt>Name</dt>
      <dd>{outcome.namespace === 'handle' ? `@${outcome.name}` : outcome.name}</dd>
      <dt>Namespace</dt>
      <dd>{outcome.namespace}</dd>
      <dt>Owner</dt>
      <dd className="mono">{outcome.owner}</dd>
      <dt>Tokenized</dt>
      <dd>{outcome.tokenized ? 'yes (authority follows the NFT holder; the owner is informational)' : 'no'}</dd>
      <dt>Verification</dt>
      <dd>{outcome.verification}</dd>
    </dl>
  );
}

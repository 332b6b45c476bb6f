// The lookup's answer (rendered on the server from lib/lookup.ts).
import { Fragment } from 'react';
import type { AgentLevelResult } from '@sigil/contract/agents';
import type { LookupResult } from '../lib/lookup';
import { ErrorNotice } from './notice';

/** The level names of docs/mcp.md. */
const LEVEL_NAMES = { L0: 'declared', L1: 'attested', L2: 'pay-to confirmed' } as const;

export function LookupResultView({ result }: { result: LookupResult }) {
  if (result.kind === 'error') {
    return (
      <ErrorNotice>
        <span className="mono">{result.query}</span>: {result.text}
      </ErrorNotice>
    );
  }
  if (result.kind === 'reverse') {
    return (
      <section aria-labelledby="result-heading">
        <h2 id="result-heading">Wallet</h2>
        <dl className="result">
          <dt>Wallet</dt>
          <dd className="mono">{result.address}</dd>
          <dt>Primary handle</dt>
          <dd>
            <a href={`/?q=${encodeURIComponent('@' + result.handle)}`}>@{result.handle}</a>
          </dd>
        </dl>
      </section>
    );
  }
  const r = result.resolution;
  return (
    <>
      <section aria-labelledby="result-heading">
        <h2 id="result-heading">{r.namespace === 'handle' ? `@${r.name}` : r.name}</h2>
        <dl className="result">
          <dt>Namespace</dt>
          <dd>{r.namespace}</dd>
          <dt>Owner</dt>
          <dd className="mono">{r.owner}</dd>
          <dt>Tokenized</dt>
          <dd>{r.tokenized ? 'yes (authority follows the NFT holder; the owner is informational)' : 'no'}</dd>
          <dt>Verification</dt>
          <dd>{r.verification}</dd>
        </dl>
      </section>
      <DetailsView details={result} />
    </>
  );
}

function DetailsView({ details }: { details: Extract<LookupResult, { kind: 'resolution' }> }) {
  const { records, agent, level, problems } = details;
  return (
    <>
      {records && (
        <section aria-labelledby="records-heading">
          <h2 id="records-heading">Address records</h2>
          {records.addresses.length === 0 ? (
            <p>No address records.</p>
          ) : (
            <div className="scroll">
              <table className="stacked">
                <thead>
                  <tr>
                    <th scope="col">Chain</th>
                    <th scope="col">Address</th>
                    <th scope="col">Verified</th>
                  </tr>
                </thead>
                <tbody>
                  {records.addresses.map((r) => (
                    <tr key={r.chain}>
                      <td data-label="Chain">{r.chain}</td>
                      <td data-label="Address" className="mono">
                        {r.address}
                      </td>
                      <td data-label="Verified">
                        {r.verified && r.verifiedAt !== null
                          ? `verified ${new Date(r.verifiedAt * 1000).toLocaleDateString()}`
                          : 'not verified'}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <p className="hint">Read at slot {records.slot}.</p>
        </section>
      )}
      {agent && (
        <section aria-labelledby="agent-heading">
          <h2 id="agent-heading">Agent</h2>
          <dl className="result">
            <dt>Kind</dt>
            <dd>
              {agent.handleType === 3 ? 'agent handle (type 3, immutable)' : 'handle with an agent.manifest record'}
            </dd>
            <dt>Manifest</dt>
            <dd className="mono">{agent.manifestUrl}</dd>
            <dt>Name in manifest</dt>
            <dd>{agent.manifest.sigil.name}</dd>
            <dt>Network</dt>
            <dd>{agent.manifest.sigil.network}</dd>
            <dt>Attestation</dt>
            <dd className="mono">{agent.manifest.identity?.attestation ?? 'none referenced'}</dd>
            <dt>Endpoints</dt>
            <dd>
              {(agent.manifest.endpoints ?? []).length === 0
                ? 'none'
                : (agent.manifest.endpoints ?? []).map((e) => (
                    <span key={`${e.type}:${e.url}`} className="block mono">
                      {e.type}: {e.url}
                    </span>
                  ))}
            </dd>
          </dl>
          {agent.manifest.identity?.description && <p>{agent.manifest.identity.description}</p>}
        </section>
      )}
      {level && <LevelView level={level} />}
      {problems.length > 0 && (
        <p className="hint" role="status">
          Not shown: {problems.join('; ')}
        </p>
      )}
    </>
  );
}

function LevelView({ level }: { level: AgentLevelResult }) {
  return (
    <section aria-labelledby="level-heading">
      <h2 id="level-heading">Verification level</h2>
      <p>
        <strong>
          {level.level} {LEVEL_NAMES[level.level]}
        </strong>
      </p>
      <dl className="result">
        {level.reached.map((r) => (
          <Fragment key={r.level}>
            <dt>
              {r.level} {LEVEL_NAMES[r.level]}
            </dt>
            <dd>{r.reason}</dd>
          </Fragment>
        ))}
        {level.next && (
          <>
            <dt>
              {level.next.level} {LEVEL_NAMES[level.next.level]}: not reached
            </dt>
            <dd>
              <code>{level.next.reason}</code>: {level.next.message}
            </dd>
          </>
        )}
      </dl>
      <p className="hint">
        Checked live at slot {level.slot}; levels above the first one not reached were not checked.
      </p>
    </section>
  );
}

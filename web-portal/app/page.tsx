import { LookupResultView } from '../components/lookup-result';
import { lookup } from '../lib/lookup';
import { portalServerConfig } from '../lib/server-config';

// A server component: the form is a plain GET form and the answer is rendered here (lib/lookup.ts).
export default async function HomePage({ searchParams }: { searchParams: Promise<{ q?: string | string[] }> }) {
  const q = (await searchParams).q;
  const query = (Array.isArray(q) ? q[0] : q)?.trim() ?? '';
  const result = query ? await lookup(query, portalServerConfig()) : null;
  return (
    <>
      <h1>Look up a name or wallet</h1>
      <p className="hint">
        A handle (<code>@alice</code> or <code>alice</code>) or a domain (<code>satoshi.x1</code>) resolves to its
        owner, its address records and, for an agent, its manifest; a wallet address answers its trusted primary handle.
      </p>
      <form className="inline" role="search" action="/" method="get">
        <label>
          Name or wallet address
          <input type="text" name="q" defaultValue={query} autoComplete="off" spellCheck={false} required />
        </label>
        <button type="submit">Look up</button>
      </form>
      {result && <LookupResultView result={result} />}
    </>
  );
}

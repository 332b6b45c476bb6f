import { Lookup } from '../components/lookup';

export default function HomePage() {
  return (
    <>
      <h1>Look up a name or wallet</h1>
      <p className="hint">
        A handle (<code>@alice</code> or <code>alice</code>) or a domain (<code>satoshi.x1</code>) resolves to its
        owner; a wallet address answers its trusted primary handle. Public, no key needed.
      </p>
      <Lookup />
    </>
  );
}

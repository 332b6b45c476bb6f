'use client';
import { useEffect, useState } from 'react';
import { useSearchParams } from 'next/navigation';
import { errorText, isSessionLost, trpc } from '../lib/trpc';
import { useSession } from './session';
import { RequireSession } from './sign-in';
import { UsageChart } from './usage-chart';
import { ErrorNotice } from './notice';

export function UsagePanel() {
  return (
    <RequireSession purpose="see your account's usage over time">
      <SignedInUsage />
    </RequireSession>
  );
}

function SignedInUsage() {
  const { setSession } = useSession();
  const params = useSearchParams();
  const [keys, setKeys] = useState<{ id: string; name: string | null }[] | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    trpc.keys.list
      .query({})
      .then((list) => setKeys(list.keys.map((k) => ({ id: k.id, name: k.name }))))
      .catch((err: unknown) => (isSessionLost(err) ? setSession(null) : setError(errorText(err))));
  }, [setSession]);
  if (error) return <ErrorNotice>{error}</ErrorNotice>;
  if (keys === null) return <p aria-live="polite">Loading your keys…</p>;
  return <UsageChart keys={keys} keyId={params.get('key') ?? undefined} />;
}

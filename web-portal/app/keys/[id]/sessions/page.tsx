import type { Metadata } from 'next';
import { KeyPages } from '../../../../components/key-pages';
import { KeySessionsPanel } from '../../../../components/key-sessions';

export const metadata: Metadata = { title: 'Key sessions' };

export default async function KeySessionsPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <>
      <h1>Sessions</h1>
      <KeyPages id={id} purpose="see and revoke the sessions of this key">
        <KeySessionsPanel />
      </KeyPages>
    </>
  );
}

import type { Metadata } from 'next';
import { IdentityNav } from '../../../../components/identity-nav';
import { WebhookDetail } from '../../../../components/webhook-detail';

export const metadata: Metadata = { title: 'Identity webhook' };

export default async function IdentityWebhookPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <>
      <h1>Identity webhook</h1>
      <IdentityNav />
      <WebhookDetail id={id} stream="identity" />
    </>
  );
}

import type { Metadata } from 'next';
import { WebhookDetail } from '../../../components/webhook-detail';

export const metadata: Metadata = { title: 'Webhook' };

export default async function WebhookPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <>
      <h1>Webhook</h1>
      <WebhookDetail id={id} stream="pay" />
    </>
  );
}

import type { Metadata } from 'next';
import { KeyPages } from '../../../../components/key-pages';
import { OidcClientPanel } from '../../../../components/oidc-client';

export const metadata: Metadata = { title: 'OpenID Connect client' };

export default async function KeyOidcPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <>
      <h1>OpenID Connect client</h1>
      <KeyPages id={id} purpose="manage this key’s OpenID Connect client">
        <OidcClientPanel />
      </KeyPages>
    </>
  );
}

// /api/trpc/<procedure> → the service's /trpc/<procedure> for the procedures the portal uses (lib/trpc-proxy.ts).
import { portalServerConfig } from '../../../../lib/server-config';
import { forwardTrpc } from '../../../../lib/trpc-proxy';

export const dynamic = 'force-dynamic';

type Context = { params: Promise<{ trpc: string }> };

async function handle(request: Request, { params }: Context): Promise<Response> {
  return forwardTrpc((await params).trpc, request, portalServerConfig());
}

export { handle as GET, handle as POST, handle as PUT, handle as PATCH, handle as DELETE };

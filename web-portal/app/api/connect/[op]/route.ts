// /api/connect/<op> → the service's /v1/auth/<op> with the portal key (lib/connect-proxy.ts).
import { forwardConnect } from '../../../../lib/connect-proxy';
import { portalServerConfig } from '../../../../lib/server-config';

export const dynamic = 'force-dynamic';

type Context = { params: Promise<{ op: string }> };

async function handle(request: Request, { params }: Context): Promise<Response> {
  return forwardConnect((await params).op, request, portalServerConfig());
}

export { handle as GET, handle as POST, handle as PUT, handle as PATCH, handle as DELETE };

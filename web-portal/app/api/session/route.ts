// The portal pages' session read (lib/session-read.ts).
import { portalServerConfig } from '../../../lib/server-config';
import { readPortalSession } from '../../../lib/session-read';

export const dynamic = 'force-dynamic';

export function GET(request: Request): Promise<Response> {
  return readPortalSession(request, portalServerConfig());
}

// The API key the webhook pages use, in an httpOnly cookie (lib/webhook-key.ts).
import { portalServerConfig } from '../../../lib/server-config';
import { handleWebhookKey } from '../../../lib/webhook-key';

export const dynamic = 'force-dynamic';

function handle(request: Request): Promise<Response> {
  return handleWebhookKey(request, portalServerConfig());
}

export { handle as GET, handle as POST, handle as DELETE };

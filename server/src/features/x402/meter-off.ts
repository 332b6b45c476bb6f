// The meter of a deployment without x402 (SIGIL_X402_PAY_TO unset): a keyless metered call is simply unauthenticated.
import { ApiError } from '@sigil/contract/errors';
import type { Meter } from '../../trpc/context';

export const meteringOff: Meter = {
  authorize: () => Promise.reject(new ApiError('API_KEY_REQUIRED', 'send your API key in the X-API-Key header')),
  settle: () => Promise.reject(new Error('settle without a payment: x402 is off on this deployment')),
  payerOf: () => {
    throw new Error('payerOf without a payment: x402 is off on this deployment');
  },
};

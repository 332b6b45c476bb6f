import { GiftStateInputSchema, GiftStateSchema } from '@sigil/contract/gifts';
import { rest } from '../../trpc/meta';
import { publicProcedure } from '../../trpc/procedures';

/** GET /gift/{voucher}: a gift's claimable state. */
export const giftState = publicProcedure
  .meta(
    rest('GET', '/gift/{voucher}', {
      summary: "A gift's claimable state",
      description:
        'Keyless. A live voucher is read from the chain (finalized): `claimable` until `expiresAt`, then `expired` ' +
        '(only its creator may take the handle back). A settled one (its account closed) answers `claimed` or ' +
        '`refunded` from what the identity log kept (docs/gifts.md).',
      tags: ['public'],
      errors: {
        INVALID_ADDRESS: 'the voucher is not a base58 address',
        GIFT_NOT_FOUND: 'no voucher at this address, and the identity log saw none settle there',
        RPC_UNREACHABLE: '',
      },
    }),
  )
  .input(GiftStateInputSchema)
  .output(GiftStateSchema)
  .query(({ ctx, input }) => ctx.services.gifts.state(input.voucher));

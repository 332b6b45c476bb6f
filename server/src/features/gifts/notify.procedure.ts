import { GiftNotifyInputSchema, GiftNotifyResultSchema } from '@sigil/contract/gifts';
import { rest } from '../../trpc/meta';
import { publicProcedure } from '../../trpc/procedures';

/** POST /gift/notify: a finalized `create_voucher` transaction's signature → its gifts, their events logged at once. */
export const giftNotify = publicProcedure
  .meta(
    rest('POST', '/gift/notify', {
      summary: 'Say that a gift was just made, so that its recipient hears of it at once',
      description:
        'Keyless. Takes only the signature of a finalized transaction that created gifts (registry vouchers, ' +
        '`create_voucher`); Sigil reads and checks the transaction itself and acts on nothing else. It wakes the ' +
        'indexer, so the `gift.created` identity event — in the identity log and to the identity webhooks that ' +
        'watch the recipient, the creator or the handle — follows at once instead of at the next pass, and waits up ' +
        'to 1 s for it. Idempotent: the event is derived once from the chain, however often this is called; a ' +
        'call writes nothing. Sends nothing anywhere. 30 calls per minute and 2,000 per UTC day per client address ' +
        '(docs/gifts.md).',
      tags: ['public'],
      errors: {
        BAD_REQUEST: 'no `signature`, or an unexpected field',
        INVALID_TX_SIGNATURE: 'not base58 of 64 bytes',
        TX_NOT_FOUND: 'the chain has no such transaction',
        TX_NOT_FINALIZED: 'confirmed but not finalized yet: retry in a few seconds',
        TX_FAILED: 'the transaction failed on chain: it made no gift',
        NOT_A_GIFT: 'the transaction has no `create_voucher` instruction of the registry',
        RATE_LIMITED: 'over 30 calls per minute (or 2,000 per UTC day) from this client address; see Retry-After',
        RPC_UNREACHABLE: '',
      },
    }),
  )
  .input(GiftNotifyInputSchema)
  .output(GiftNotifyResultSchema)
  .mutation(({ ctx, input }) =>
    ctx.services.gifts.notify({ clientIp: ctx.clientIp, responseHeaders: ctx.responseHeaders }, input.signature),
  );

import { router } from '../../trpc/init';
import { giftNotify } from './notify.procedure';
import { giftState } from './state.procedure';

/** tRPC paths: gifts.notify, gifts.state. */
export const giftsRouter = router({ notify: giftNotify, state: giftState });

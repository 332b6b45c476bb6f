import { router } from '../../trpc/init';
import { challenge } from './challenge.procedure';
import { session } from './session.procedure';
import { verify } from './verify.procedure';
import { verifySignin } from './verify-signin.procedure';
import { verifyTx } from './verify-tx.procedure';

/** tRPC paths: connect.challenge, connect.verify, connect.verifyTx, connect.verifySignin, connect.session. */
export const connectRouter = router({ challenge, verify, verifyTx, verifySignin, session });

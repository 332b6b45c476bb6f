import { router } from '../../trpc/init';
import { check } from './check.procedure';
import { createPolicy } from './policy-create.procedure';
import { deletePolicy } from './policy-delete.procedure';
import { getPolicy } from './policy-get.procedure';
import { listPolicies } from './policy-list.procedure';
import { replacePolicy } from './policy-replace.procedure';
import { jwks, policySchema } from './published.procedure';

/** tRPC paths: gate.check, gate.createPolicy, gate.listPolicies, gate.getPolicy, gate.replacePolicy, … */
export const gateRouter = router({
  check,
  createPolicy,
  listPolicies,
  getPolicy,
  replacePolicy,
  deletePolicy,
  jwks,
  policySchema,
});

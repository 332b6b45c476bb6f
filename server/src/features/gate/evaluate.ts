// Three-valued evaluation of a policy (docs/gate.md "Evaluation"): a leaf is true, false, or null (could not be
// evaluated), combinators follow Kleene's strong logic, so a decision that depends on a null is indeterminate and
// never allow. Pure: leaves are evaluated by the function passed in, all of them (no short-circuit), so every reason
// is reported.
import type { GateReason, LeafName, PolicyNode } from '@sigil/contract/gate';

export type Tri = boolean | null;

export interface LeafOutcome {
  result: Tri;
  evidence: Record<string, unknown>;
  error?: string;
  /** Unix seconds at which this leaf's true result stops holding (an attestation's expiry). */
  expiresAt?: number;
}

export type LeafEvaluator = (name: LeafName, params: Record<string, unknown>) => Promise<LeafOutcome>;

export interface Evaluation {
  result: Tri;
  /** Every node in document order (pre-order), with its JSON Pointer. */
  reasons: GateReason[];
  /** The expiries reported by leaves that were true. */
  expiries: number[];
}

/** Kleene conjunction: false wins, then null. */
export function all(results: readonly Tri[]): Tri {
  if (results.includes(false)) return false;
  return results.includes(null) ? null : true;
}

/** Kleene disjunction: true wins, then null. */
export function any(results: readonly Tri[]): Tri {
  if (results.includes(true)) return true;
  return results.includes(null) ? null : false;
}

export function not(result: Tri): Tri {
  return result === null ? null : !result;
}

/** At least n true: decided true once n are true, false once even every null turning true could not reach n. */
export function atLeast(n: number, results: readonly Tri[]): Tri {
  const yes = results.filter((r) => r === true).length;
  const unknown = results.filter((r) => r === null).length;
  if (yes >= n) return true;
  return yes + unknown < n ? false : null;
}

export async function evaluatePolicy(policy: PolicyNode, leaf: LeafEvaluator): Promise<Evaluation> {
  const reasons: GateReason[] = [];
  const expiries: number[] = [];

  const visit = async (node: PolicyNode, path: string): Promise<Tri> => {
    const [key, body] = Object.entries(node)[0] as [string, unknown];
    const here = `${path}/${key}`;
    const reason: GateReason = { path: here, result: null, evidence: {} };
    reasons.push(reason); // before the children: document order
    let result: Tri;
    switch (key) {
      case 'all':
      case 'any': {
        const list = body as PolicyNode[];
        const results = await Promise.all(list.map((child, i) => visit(child, `${here}/${i}`)));
        result = key === 'all' ? all(results) : any(results);
        break;
      }
      case 'not':
        result = not(await visit(body as PolicyNode, here));
        break;
      case 'atLeast': {
        const { n, of } = body as { n: number; of: PolicyNode[] };
        result = atLeast(n, await Promise.all(of.map((child, i) => visit(child, `${here}/of/${i}`))));
        break;
      }
      default: {
        const outcome = await leaf(key as LeafName, body as Record<string, unknown>);
        result = outcome.result;
        reason.evidence = outcome.evidence;
        if (outcome.error !== undefined) reason.error = outcome.error;
        if (outcome.result === true && outcome.expiresAt !== undefined) expiries.push(outcome.expiresAt);
      }
    }
    reason.result = result;
    return result;
  };

  const result = await visit(policy, '');
  return { result, reasons, expiries };
}

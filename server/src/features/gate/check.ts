// POST /v1/gate/check (docs/gate.md "Check"): the subject → its wallet and handle, then every leaf over reads made
// once per check (memoized), all answered at or after the subject read's slot (`minContextSlot` where the read
// takes it), then the three-valued decision.
import type { Address } from '@solana/kit';
import { AGENT_MANIFEST_RECORD } from '@sigil/contract/agents';
import { ApiError } from '@sigil/contract/errors';
import {
  AGENT_LEVELS,
  GateSubjectSchema,
  HANDLE_TYPE_NAMES,
  type GateDecision,
  type LeafName,
  type PolicyNode,
} from '@sigil/contract/gate';
import { isBase58Address, parseHandle } from '@sigil/contract/names';
import { isAttestationLive, isHandleReleased, isRecordLive, isRecordVerified } from '../../platform/chain/trust-rules';
import {
  ChainError,
  type AttestationAccount,
  type ChainReader,
  type HandleAccount,
  type HandleAuthority,
  type RecordAccount,
  type RecordKey,
} from '../../platform/chain/types';
import type { AgentLevelReport, AgentService } from '../agents/index';
import type { SessionService } from '../connect/index';
import type { ReverseService } from '../reverse/index';
import { evaluatePolicy, type LeafOutcome } from './evaluate';

/** How long a decision may be relied on at most (seconds); an attestation that expires sooner shortens it. */
export const DECISION_TTL_SECONDS = 60;

export interface CheckDeps {
  chain: ChainReader;
  /** The agents feature's verification levels (manifest fetch and x402 probe through the outbound client). */
  agents: Pick<AgentService, 'level'>;
  reverse: ReverseService;
  sessions: Pick<SessionService, 'verify'>;
  suffixes: readonly string[];
  now: () => number;
}

/** What the leaves stand on: `undefined` = could not be read (a leaf that needs it is null), `null` = there is none. */
interface Subject {
  wallet: Address | null | undefined;
  handle: HandleAccount | null | undefined;
  /** Why the subject is only partly known (a chain failure while resolving it). */
  error?: string;
  slot: bigint;
}

const chainMessage = (err: ChainError) =>
  err.kind === 'malformed' ? `malformed account${err.account ? ` ${err.account}` : ''}` : 'rpc unreachable';

/** The records and attestations of the subject's handle that the policy's leaves read. */
interface AccountPlan {
  records: RecordKey[];
  attestations: string[];
}

/** The accounts to read at once, and the highest agent level above L0 a leaf asks for (checked once, that far). */
interface Plan extends AccountPlan {
  agentLevel?: 'L1' | 'L2';
}

/** Walks the policy once for the accounts its leaves need, so they are read together at one slot. */
function planOf(policy: PolicyNode): Plan {
  const plan: Plan = { records: [], attestations: [] };
  const addRecord = (kind: 'address' | 'text', key: string) => {
    if (!plan.records.some((r) => r.kind === kind && r.key === key)) plan.records.push({ kind, key });
  };
  const stack: PolicyNode[] = [policy];
  while (stack.length) {
    const [key, body] = Object.entries(stack.pop()!)[0] as [string, any];
    if (key === 'all' || key === 'any') stack.push(...(body as PolicyNode[]));
    else if (key === 'not') stack.push(body as PolicyNode);
    else if (key === 'atLeast') stack.push(...(body.of as PolicyNode[]));
    else if (key === 'record.verified') addRecord('address', body.chain);
    else if (key === 'agent.level') {
      addRecord('text', AGENT_MANIFEST_RECORD);
      if (body.min === 'L2' || (body.min === 'L1' && plan.agentLevel === undefined)) plan.agentLevel = body.min;
    } else if (key === 'attestation' && !plan.attestations.includes(body.platform))
      plan.attestations.push(body.platform);
  }
  return plan;
}

/** One check's reads, each made once. */
class Reads {
  private readonly memo = new Map<string, Promise<unknown>>();
  constructor(
    private readonly deps: CheckDeps,
    private readonly plan: Plan,
    public anchor: bigint | undefined,
  ) {}

  private once<T>(key: string, read: () => Promise<T>): Promise<T> {
    let hit = this.memo.get(key) as Promise<T> | undefined;
    if (!hit) {
      hit = read();
      this.memo.set(key, hit);
    }
    return hit;
  }

  handle(name: string) {
    return this.once(`handle:${name}`, () => this.deps.chain.getHandle(name));
  }
  authority(handle: HandleAccount) {
    return this.once(`authority:${handle.address}`, () => this.deps.chain.getHandleAuthority(handle));
  }
  /** The planned records and attestations of the subject's handle: one getMultipleAccounts, pinned to the anchor. */
  private handleAccounts(handle: HandleAccount) {
    return this.once(`accounts:${handle.address}`, () =>
      this.deps.chain.getHandleAccounts(
        handle.address,
        { records: this.plan.records, attestations: this.plan.attestations },
        { minContextSlot: this.anchor },
      ),
    );
  }
  /** The agent's levels, up to the highest one the policy asks for: one manifest fetch and at most one probe. */
  agentLevel(handle: HandleAccount, nowSec: number): Promise<AgentLevelReport> {
    return this.once(`level:${handle.address}`, () =>
      this.deps.agents.level(handle.name, { upTo: this.plan.agentLevel, nowSec }),
    );
  }
  async record(handle: HandleAccount, kind: 'address' | 'text', key: string): Promise<RecordAccount | null> {
    const { value } = await this.handleAccounts(handle);
    const entry = value.records[this.plan.records.findIndex((r) => r.kind === kind && r.key === key)];
    if (entry instanceof ChainError) throw entry;
    return entry ?? null;
  }
  async attestation(handle: HandleAccount, platform: string): Promise<AttestationAccount | null> {
    const { value } = await this.handleAccounts(handle);
    const entry = value.attestations[this.plan.attestations.indexOf(platform)];
    if (entry instanceof ChainError) throw entry;
    return entry ?? null;
  }
  async reverse(wallet: Address) {
    const { verdicts, slot } = await this.once(`reverse:${wallet}`, () =>
      this.deps.reverse.explain([wallet], this.anchor),
    );
    const verdict = verdicts.get(wallet)!;
    if (verdict instanceof ChainError) throw verdict;
    return { verdict, slot };
  }
  balance(wallet: Address, mint: Address) {
    return this.once(`balance:${wallet}:${mint}`, () =>
      this.deps.chain.getTokenBalance(wallet, mint, { minContextSlot: this.anchor }),
    );
  }
}

/** Parses the subject: 400 INVALID_SUBJECT for a bad shape, handle or wallet; 401 INVALID_SESSION for a token. */
async function parseSubject(
  deps: CheckDeps,
  raw: unknown,
  audience: string,
): Promise<{ kind: 'handle'; name: string } | { kind: 'wallet'; wallet: Address; handle?: string }> {
  const parsed = GateSubjectSchema.safeParse(raw);
  if (!parsed.success)
    throw new ApiError('INVALID_SUBJECT', 'subject must be exactly one of {handle}, {wallet}, {session}');
  const subject = parsed.data;
  if ('handle' in subject) {
    const name = parseHandle(subject.handle, deps.suffixes);
    if (!name)
      throw new ApiError('INVALID_SUBJECT', `subject.handle: "${subject.handle.slice(0, 64)}" is not a handle`);
    return { kind: 'handle', name };
  }
  if ('wallet' in subject) {
    if (!isBase58Address(subject.wallet)) {
      throw new ApiError('INVALID_SUBJECT', `subject.wallet: "${subject.wallet.slice(0, 64)}" is not a base58 address`);
    }
    return { kind: 'wallet', wallet: subject.wallet as Address };
  }
  // Only a session issued through THIS key counts: another key's session is refused like a forged one.
  const claims = await deps.sessions.verify(subject.session, audience);
  return { kind: 'wallet', wallet: claims.address as Address, handle: claims.handle ?? undefined };
}

async function resolveSubject(reads: Reads, parsed: Awaited<ReturnType<typeof parseSubject>>): Promise<Subject> {
  const handleByName = async (name: string): Promise<{ handle: HandleAccount | null; slot: bigint }> => {
    const { value, slot } = await reads.handle(name);
    return { handle: value && !isHandleReleased(value) ? value : null, slot };
  };
  try {
    if (parsed.kind === 'handle') {
      const { handle, slot } = await handleByName(parsed.name);
      reads.anchor = slot;
      const authority = handle ? await reads.authority(handle) : null;
      return { wallet: authority?.authority ?? null, handle, slot };
    }
    if (parsed.handle) {
      // A session that proved a handle: the leaves read that handle as it is now, and only while the session's
      // wallet still holds it (a handle sold since sign-in is no longer the subject's).
      const { handle, slot } = await handleByName(parsed.handle);
      reads.anchor = slot;
      const authority = handle ? await reads.authority(handle) : null;
      return { wallet: parsed.wallet, handle: authority?.authority === parsed.wallet ? handle : null, slot };
    }
    const { verdict, slot } = await reads.reverse(parsed.wallet);
    reads.anchor = slot;
    return { wallet: parsed.wallet, handle: verdict.handle, slot };
  } catch (err) {
    if (!(err instanceof ChainError)) throw err;
    return {
      wallet: parsed.kind === 'wallet' ? parsed.wallet : undefined,
      handle: undefined,
      error: chainMessage(err),
      slot: 0n,
    };
  }
}

const unknownSubject = (subject: Subject, what: 'wallet' | 'handle'): LeafOutcome => ({
  result: null,
  evidence: {},
  error: `the subject's ${what} could not be read (${subject.error ?? 'rpc unreachable'})`,
});

/** One leaf over the subject; a chain failure makes it null with the reason. */
async function evaluateLeaf(...args: Parameters<typeof leafOutcome>): Promise<LeafOutcome> {
  try {
    return await leafOutcome(...args);
  } catch (err) {
    if (err instanceof ChainError) return { result: null, evidence: {}, error: chainMessage(err) };
    throw err;
  }
}

/** What one leaf is judged on: the check's reads, the subject, the check's time and the leaf's own parameters. */
interface LeafInput {
  reads: Reads;
  subject: Subject;
  nowSec: number;
  params: Record<string, unknown>;
}

type LeafHandler = (input: LeafInput) => Promise<LeafOutcome>;

/** A leaf about the subject's handle: null while the handle is unknown, false when the subject has none. */
const onHandle =
  (judge: (input: LeafInput, handle: HandleAccount) => Promise<LeafOutcome>): LeafHandler =>
  async (input) => {
    const { handle } = input.subject;
    if (handle === undefined) return unknownSubject(input.subject, 'handle');
    if (!handle) return { result: false, evidence: { handle: null } };
    return judge(input, handle);
  };

/** One small handler per leaf kind (docs/gate.md "The policy language"). */
const LEAVES: Record<LeafName, LeafHandler> = {
  'handle.owned': async ({ reads, subject, params }) => {
    const { wallet, handle } = subject;
    const named = params.handle as string | undefined;
    if (!named && handle === undefined) return unknownSubject(subject, 'handle');
    if (wallet === undefined) return unknownSubject(subject, 'wallet');
    const target = named ? await ownedTarget(reads, named) : handle!;
    if (!target) return { result: false, evidence: { handle: named ? normalized(named) : null, registered: false } };
    const authority: HandleAuthority = await reads.authority(target);
    return {
      result: wallet !== null && authority.authority === wallet,
      evidence: { handle: target.name, authority: authority.authority, source: authority.source },
    };
  },
  'handle.primary': async ({ reads, subject, params }) => {
    const { wallet } = subject;
    if (wallet === undefined) return unknownSubject(subject, 'wallet');
    if (wallet === null) return { result: false, evidence: { wallet: null } };
    const { verdict } = await reads.reverse(wallet);
    const primary = verdict.result.handle;
    const wanted = params.handle ? normalized(params.handle as string) : undefined;
    return {
      result: primary !== null && (wanted === undefined || primary === wanted),
      evidence: { primary, failedRule: verdict.result.failedRule },
    };
  },
  'handle.type': onHandle(async ({ params }, handle) => {
    const wanted = HANDLE_TYPE_NAMES.indexOf(params.type as (typeof HANDLE_TYPE_NAMES)[number]);
    return {
      result: handle.handleType === wanted,
      evidence: { handle: handle.name, handleType: HANDLE_TYPE_NAMES[handle.handleType] ?? handle.handleType },
    };
  }),
  'record.verified': onHandle(async ({ reads, params }, handle) => {
    const [record, authority] = await Promise.all([
      reads.record(handle, 'address', params.chain as string),
      reads.authority(handle),
    ]);
    const verified = record ? isRecordVerified(record, handle, authority) : false;
    return {
      result: verified,
      evidence: {
        handle: handle.name,
        chain: params.chain,
        address: record?.value ?? null,
        // A record written under a previous owner or registration is stale: present, but it does not count.
        stale: record ? !isRecordLive(record, handle, authority) : null,
        verifiedAt: verified ? record!.verifiedAt : null,
      },
    };
  }),
  attestation: onHandle(async ({ reads, nowSec, params }, handle) => {
    const { platform, issuers, maxAgeSec } = params as { platform: string; issuers?: string[]; maxAgeSec?: number };
    // One attestation per handle and platform (its address derives from both).
    const found = await reads.attestation(handle, platform);
    const fresh = (issuedAt: number) => maxAgeSec === undefined || issuedAt >= nowSec - maxAgeSec;
    const byIssuer = found && (!issuers || issuers.includes(found.issuer)) ? found : undefined;
    const live = byIssuer && isAttestationLive(byIssuer, nowSec) && fresh(byIssuer.issuedAt) ? byIssuer : undefined;
    const shown = found ?? undefined;
    return {
      result: live !== undefined,
      evidence: {
        handle: handle.name,
        platform,
        attestation: shown
          ? {
              account: shown.address,
              issuer: shown.issuer,
              subject: shown.subject,
              issuedAt: shown.issuedAt,
              expiresAt: shown.expiresAt,
              revoked: shown.revoked,
            }
          : null,
      },
      ...(live && live.expiresAt !== 0 ? { expiresAt: live.expiresAt } : {}),
    };
  }),
  'agent.level': onHandle(async ({ reads, nowSec, params }, handle) => {
    const [record, authority] = await Promise.all([
      reads.record(handle, 'text', AGENT_MANIFEST_RECORD),
      reads.authority(handle),
    ]);
    const manifest = record && isRecordLive(record, handle, authority) ? record : undefined;
    const evidence = { handle: handle.name, handleType: handle.handleType, manifest: manifest?.value ?? null };
    if (!manifest) return { result: false, evidence: { ...evidence, level: null } };
    const min = params.min as (typeof AGENT_LEVELS)[number];
    if (min === 'L0') return { result: true, evidence: { ...evidence, level: 'L0' } };
    return agentLevelOutcome(reads, handle, nowSec, min, evidence);
  }),
  'token.balance': async ({ reads, subject, params }) => {
    const { wallet } = subject;
    if (wallet === undefined) return unknownSubject(subject, 'wallet');
    if (wallet === null) return { result: false, evidence: { wallet: null } };
    const { mint, min } = params as { mint: Address; min: string };
    const { value, slot } = await reads.balance(wallet, mint);
    return { result: value >= BigInt(min), evidence: { mint, balance: value.toString(), min, slot: Number(slot) } };
  },
  'wallet.in': async ({ subject, params }) => {
    const { wallet } = subject;
    if (wallet === undefined) return unknownSubject(subject, 'wallet');
    return { result: wallet !== null && (params.list as string[]).includes(wallet), evidence: { wallet } };
  },
};

function leafOutcome(
  reads: Reads,
  subject: Subject,
  nowSec: number,
  name: LeafName,
  params: Record<string, unknown>,
): Promise<LeafOutcome> {
  return LEAVES[name]({ reads, subject, nowSec, params });
}

/**
 * `agent.level` L1 / L2 of a declared agent, judged by the agents feature (docs/gate.md "agent.level"): a level not
 * reached — the manifest or the probe failed on the agent's side — is false with the reason; only a chain read that
 * cannot be made is null.
 */
async function agentLevelOutcome(
  reads: Reads,
  handle: HandleAccount,
  nowSec: number,
  min: 'L1' | 'L2',
  evidence: Record<string, unknown>,
): Promise<LeafOutcome> {
  let report: AgentLevelReport;
  try {
    report = await reads.agentLevel(handle, nowSec);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.code === 'RPC_ERROR') return { result: null, evidence: { ...evidence, level: 'L0' }, error: err.message };
    // The agents read sees the handle at `confirmed` after the check's read: released or undeclared since.
    return { result: false, evidence: { ...evidence, level: null, refused: { code: err.code, message: err.message } } };
  }
  const result = AGENT_LEVELS.indexOf(report.level) >= AGENT_LEVELS.indexOf(min);
  const expiresAt = report.attestation?.expiresAt;
  return {
    result,
    evidence: {
      ...evidence,
      level: report.level,
      reached: report.reached,
      next: report.next,
      slot: Number(report.slot),
    },
    ...(result && expiresAt ? { expiresAt } : {}),
  };
}

const normalized = (name: string) => (name.startsWith('@') ? name.slice(1) : name).toLowerCase();

/** The named handle of `handle.owned`, live, or null (unregistered, released, or not a handle at all). */
async function ownedTarget(reads: Reads, name: string): Promise<HandleAccount | null> {
  const parsed = parseHandle(name);
  if (!parsed) return null;
  const { value } = await reads.handle(parsed);
  return value && !isHandleReleased(value) ? value : null;
}

/** Evaluates `policy` for the subject; the caller adds the policy's id, version and hash. */
export async function checkPolicy(
  deps: CheckDeps,
  input: { subject: unknown; audience: string; policy: PolicyNode },
): Promise<Omit<GateDecision, 'policyHash' | 'policyId' | 'version'>> {
  const parsed = await parseSubject(deps, input.subject, input.audience);
  const reads = new Reads(deps, planOf(input.policy), undefined);
  const subject = await resolveSubject(reads, parsed);
  const evaluatedAt = Math.floor(deps.now() / 1000);
  const { result, reasons, expiries } = await evaluatePolicy(input.policy, (name, params) =>
    evaluateLeaf(reads, subject, evaluatedAt, name, params),
  );
  const validUntil = Math.min(evaluatedAt + DECISION_TTL_SECONDS, ...expiries);
  return {
    decision: result === true ? 'allow' : result === false ? 'deny' : 'indeterminate',
    subject: {
      wallet: subject.wallet ?? null,
      handle: subject.handle ? subject.handle.name : null,
    },
    slot: Number(subject.slot),
    evaluatedAt,
    validUntil,
    reasons,
  };
}

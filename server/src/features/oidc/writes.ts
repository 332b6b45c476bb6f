// A step's writes of the library's rows, collected and written together (docs/oidc.md "Read ahead, written
// together"). The library saves each row with its own await: at verify the grant and the interaction's result, at
// resume the interaction's destroy, the authorization code and the browser session (with its sids), and, in a
// browser already signed in, the delete of the session row it replaces. Written one by one, each is a group commit
// of its own on SQLite (the next write starts after the previous one's commit, in a later event-loop turn) and a
// statement, a loopback round trip, on Postgres. Collected, they are one write: one commit, one statement.
//
// While a collection is open (request-scope.ts), the adapter adds its upserts and those destroys to it instead of
// writing them, and a read of a row the step wrote is answered from it (the row as the step left it). Nothing the
// library does in the step depends on those writes being stored before the step's answer; the answer is sent only
// after they are (resumeWritesTogether below). A destroy that must survive a power cut (the replaced session's)
// does so as outside a collection: the write then waits for the durability barrier too (save).
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Logger } from '../../platform/log';
import { OIDC_PREFIX, type ProviderDeps } from './deps';
import { errorPage, PAGE_HEADERS } from './page';
import { mergeWrites, writeSignIn, type PayloadRow, type PayloadUpsert, type SignInWrite } from './queries';
import { collectInto } from './request-scope';

/**
 * Whether a destroy of `model` must be on disk before it is acted on (the durability barrier): all but an
 * interaction's, whose loss takes the code written with it along (adapter.ts destroy).
 */
export const destroyMustSurvive = (model: string) => model !== 'Interaction';

/** The writes of one step, in order; the latest write of each row is what is stored (mergeWrites). */
export class PendingWrites {
  private readonly writes: SignInWrite[] = [];

  upsert(row: PayloadUpsert, sids: readonly { grantId: string; sid: string }[]): void {
    this.writes.push({ payloads: [row], sids });
  }

  delete(model: string, id: string): void {
    this.writes.push({ payloads: [], deletes: [{ model, id }] });
  }

  /** The row as this step left it: its pending upsert, null when the step deleted it, undefined when untouched. */
  find(model: string, id: string): PayloadRow | null | undefined {
    const { payloads, deletes } = mergeWrites(this.writes);
    if (deletes.some((row) => row.model === model && row.id === id)) return null;
    const row = payloads.find((row) => row.model === model && row.id === id);
    return row && { payload: row.payload, grant_id: row.grant_id, expires_at: row.expires_at, consumed_at: null };
  }

  get empty(): boolean {
    return this.writes.length === 0;
  }

  /**
   * Writes the step's rows, with what `extra` adds (verify's new login), as one write; then, when a destroy in it
   * must survive (destroyMustSurvive), waits for the durability barrier before the step answers.
   */
  async save(deps: Pick<ProviderDeps, 'db' | 'durable'>, extra: Pick<SignInWrite, 'login'> = {}): Promise<void> {
    const { payloads, deletes, sids } = mergeWrites(this.writes);
    await writeSignIn(deps.db, { payloads, deletes, sids, ...extra });
    if (!deletes.some((row) => destroyMustSurvive(row.model))) return;
    try {
      await deps.durable();
    } catch (error) {
      throw new StoredNotDurable(error);
    }
  }
}

/** The step's write is stored (visible to every reader), but the barrier that makes its deletes survive failed. */
export class StoredNotDurable extends Error {
  constructor(cause: unknown) {
    super('stored, but its deletes could not be made durable', { cause });
  }
}

const RESUME_PATH = new RegExp(`^${OIDC_PREFIX}/auth/[^/]+$`);

/**
 * Provider middleware: a resume's writes (the interaction's destroy, the code, the browser session and its sid, a
 * replaced session's delete) are written together once the library has built its answer, before the answer is sent.
 * If they cannot be written, nothing of them is stored (one transaction, one statement) and the browser gets a 500
 * page instead of the redirect with a code no one could exchange; the answer's cookies are withheld too, so the
 * browser still holds the resume cookie and a reload resumes the same interaction, which still exists. If they were
 * written but the barrier after a replaced session's delete failed, the interaction is already gone: the 500 page
 * then asks for a new sign-in from the application instead of a reload.
 */
export function resumeWritesTogether(deps: Pick<ProviderDeps, 'db' | 'durable'> & { log: Pick<Logger, 'error'> }) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> => {
    // HEAD too: the library's router answers HEAD with the GET route, so a HEAD resume issues a code as well.
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || !RESUME_PATH.test(ctx.path)) return next();
    const pending = new PendingWrites();
    // A resume the library could not answer stores nothing of it (the error is the library's to answer), so the
    // browser can resume it again.
    await collectInto(pending, next);
    if (!pending.empty) {
      try {
        await pending.save(deps);
      } catch (error) {
        const stored = error instanceof StoredNotDurable;
        deps.log.error(
          { err: error },
          stored ? 'oidc: a resume was stored but not made durable' : 'oidc: a resume could not be saved',
        );
        ctx.status = 500;
        ctx.remove('location');
        ctx.remove('set-cookie');
        ctx.set({ ...PAGE_HEADERS });
        ctx.body = errorPage(
          'server_error',
          stored
            ? 'the sign-in could not be completed; start it again from the application'
            : 'the sign-in could not be saved; reload this page to try again',
        );
      }
    }
  };
}

// Test helpers shared across features. Never imported by production code.
import { ApiError } from '@sigil/contract/errors';

/** Awaits `promise`, which must reject with an instance of `type`; returns that error (anything else fails the test). */
export async function rejection<E extends Error>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
): Promise<E> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof type) return err;
    throw err;
  }
  throw new Error(`expected a ${type.name}`);
}

/** The `{status, code, message}` of the ApiError `promise` must reject with. */
export async function apiFailure(
  promise: Promise<unknown>,
): Promise<{ status: number; code: string; message: string }> {
  const err = await rejection(promise, ApiError);
  return { status: err.status, code: err.code, message: err.message };
}

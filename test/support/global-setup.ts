import type { TestProject } from 'vitest/node';
import { postgresRequired, probePostgres, requiredFailure, skipLine } from './postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set once per run by this global setup; test/support/db.ts reads it. */
    postgresReachable: boolean;
  }
}

// Probe Postgres once per run, so the skip line is printed once and not once per test file.
export default async function setup(project: TestProject): Promise<void> {
  const reason = await probePostgres();
  if (reason !== undefined) {
    if (postgresRequired()) throw new Error(requiredFailure(reason));
    console.log(skipLine(reason));
  }
  project.provide('postgresReachable', reason === undefined);
}

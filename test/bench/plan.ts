import { createDatabase, migrateToLatest } from '../../server/src/platform/db/index';
import { findPayloadAhead, findPayload, findActiveClient, writeSignIn } from '../../server/src/features/oidc/queries';
const h = createDatabase({ sqliteFile: '/tmp/plan.sqlite' });
await migrateToLatest(h.db);
const db = h.db;
for (let i = 0; i < 3000; i++) {
  await writeSignIn(db, { payloads: [
    { model: 'AccessToken', id: `at${i}`, payload: JSON.stringify({ x: 'y'.repeat(400) }), grant_id: `g${i}`, client_id: `k${i % 10}`, uid: null, user_code: null, expires_at: Date.now() + 1e6 },
    { model: 'Grant', id: `g${i}`, payload: JSON.stringify({ x: 'y'.repeat(300) }), grant_id: `g${i}`, client_id: `k${i % 10}`, uid: null, user_code: null, expires_at: Date.now() + 1e6 },
  ] });
}
const time = async (name: string, f: (i: number) => Promise<unknown>) => {
  for (let i = 0; i < 2000; i++) await f(i);
  const t = performance.now();
  for (let i = 0; i < 20000; i++) await f(i % 3000);
  console.log(name, (((performance.now() - t) / 20000) * 1000).toFixed(1), 'µs');
};
await time('findPayload', (i) => findPayload(db, 'AccessToken', `at${i}`));
await time('findPayloadAhead', (i) => findPayloadAhead(db, 'AccessToken', `at${i}`, Date.now()));
await time('findActiveClient', (i) => findActiveClient(db, `k${i % 10}`));
await h.close();

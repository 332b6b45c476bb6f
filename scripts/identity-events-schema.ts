// Writes docs/identity-events.schema.json, the published JSON Schema of `sigil.identity-events/v1`, from the
// contract's zod schema (contract/src/identity-events.ts), formatted as the lint wants it. A test fails when the
// file and the contract disagree.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { identityEventsJsonSchema } from '../contract/src/identity-events';

const file = fileURLToPath(new URL('../docs/identity-events.schema.json', import.meta.url));
const text = await format(JSON.stringify(identityEventsJsonSchema()), {
  ...(await resolveConfig(file)),
  filepath: file,
});
writeFileSync(file, text);
process.stdout.write(`wrote ${file}\n`);

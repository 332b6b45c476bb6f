// `npm run docs:env`: rewrites the generated environment table of docs/deploy.md (server/src/platform/config-table.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format } from 'prettier';
import { environmentTable, TABLE_BEGIN, TABLE_END } from '../server/src/platform/config-table';

const file = join(import.meta.dirname, '../docs/deploy.md');
const doc = readFileSync(file, 'utf8');
const begin = doc.indexOf(TABLE_BEGIN);
const end = doc.indexOf(TABLE_END);
if (begin < 0 || end < begin) throw new Error(`docs/deploy.md lacks the markers ${TABLE_BEGIN} … ${TABLE_END}`);
const next = `${doc.slice(0, begin + TABLE_BEGIN.length)}\n\n${environmentTable()}\n\n${doc.slice(end)}`;
writeFileSync(file, await format(next, { filepath: file }));

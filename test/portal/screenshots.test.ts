// The screenshots in web-portal/README.md (made by `npm run portal:screenshots`, test/browser/readme-screenshots.ts):
// the table between its markers and web-portal/screenshots/ agree — every image shown exists, every image kept is
// shown, each page at both widths.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import {
  PORTAL_README,
  SCREENSHOT_WIDTHS,
  SCREENSHOTS_DIR,
  screenshotFile,
  TABLE_END,
  TABLE_START,
} from '../browser/readme-screenshots';

it('the README shows each kept page at 390 and 1280 px, and nothing else is kept', () => {
  const readme = readFileSync(PORTAL_README, 'utf8');
  const table = readme.slice(readme.indexOf(TABLE_START), readme.indexOf(TABLE_END));
  const shown = [...table.matchAll(/src="screenshots\/([^"]+)"/g)].map((m) => m[1]!);
  const pages = [...new Set(shown.map((file) => file.replace(/-\d+\.jpg$/, '')))];
  expect(pages.length).toBeGreaterThan(10);
  expect(shown).toStrictEqual(pages.flatMap((page) => SCREENSHOT_WIDTHS.map((w) => screenshotFile(page, w))));
  expect(shown.filter((file) => !existsSync(`${SCREENSHOTS_DIR}/${file}`))).toStrictEqual([]);
  expect(readdirSync(SCREENSHOTS_DIR).sort()).toStrictEqual([...shown].sort());
});

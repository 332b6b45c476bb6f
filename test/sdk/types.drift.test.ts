// The SDK's generated REST types are committed; this regenerates them from the router's OpenAPI document and fails
// on any difference, so a route, schema or error code changed without `npm run sdk:generate` does not land.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { GENERATED_TYPES_FILE, renderSdkTypes } from '../../scripts/sdk-generate';

describe('client-sdk/src/generated/openapi.ts', () => {
  it('is what `npm run sdk:generate` renders from the router today', async () => {
    const committed = await readFile(GENERATED_TYPES_FILE, 'utf8');
    const fresh = await renderSdkTypes();
    expect(committed === fresh, 'the SDK types are out of date: run `npm run sdk:generate` and commit the result').toBe(
      true,
    );
  });
});

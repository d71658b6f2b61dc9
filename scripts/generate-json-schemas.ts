import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonSchemaFiles } from '../src/cli/json-schemas.js';

/** `npm run schemas`: rewrite schemas/ from the zod schemas (src/cli/json-schemas.ts). */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'schemas');
rmSync(root, { recursive: true, force: true });
for (const [path, text] of jsonSchemaFiles()) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}
console.log(`wrote ${jsonSchemaFiles().size} files to schemas/`);

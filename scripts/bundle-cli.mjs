// Bundles the `baton` bin into dist/bin/ with code splitting: each command's lazy import stays a
// separate chunk, but the ~100 small files of zod, commander and friends become a few. Resolving
// and compiling one chunk instead of a hundred modules cuts a short command's start-up by ~25%.
import { build } from 'esbuild';

await build({
  entryPoints: { baton: 'src/cli/bin.ts' },
  outdir: 'dist/bin',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: false,
  logLevel: 'warning',
  // The PostgreSQL driver stays a runtime dependency loaded from node_modules (and only by the
  // postgres adapter's lazy chunk): bundling it would pull in its optional native binding.
  external: ['pg', 'pg-native'],
  // CommonJS dependencies (commander, ndjson) call require() for Node built-ins.
  banner: { js: "import { createRequire as __batonRequire } from 'node:module'; const require = __batonRequire(import.meta.url);" },
});

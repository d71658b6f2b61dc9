import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The dashboard's assets: a fixed list of files the build writes to `dist/serve-assets/`, read
 * into memory once when the server starts. A request is answered only when its path is one of the
 * list's keys, so no part of a URL ever reaches the file system and no path can leave the folder.
 */
export interface Asset {
  body: Buffer;
  contentType: string;
}

/** URL path → file in the assets folder. */
const ASSET_FILES: Readonly<Record<string, { file: string; contentType: string }>> = {
  '/': { file: 'index.html', contentType: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', contentType: 'text/javascript; charset=utf-8' },
  '/app.css': { file: 'app.css', contentType: 'text/css; charset=utf-8' },
  '/favicon.svg': { file: 'favicon.svg', contentType: 'image/svg+xml' },
};

export const ASSETS_FOLDER = 'serve-assets';

/** The assets folder, looked for upwards from this module (the bundled bin and `dist/src/serve/` sit at different depths). */
export function assetsDir(): string {
  let dir = new URL('.', import.meta.url);
  for (let depth = 0; depth < 6; depth++) {
    const candidate = new URL(`${ASSETS_FOLDER}/`, dir);
    if (existsSync(new URL('index.html', candidate))) return fileURLToPath(candidate);
    dir = new URL('..', dir);
  }
  throw new Error(`the dashboard assets (${ASSETS_FOLDER}/index.html) are missing: run npm run build`);
}

export function loadAssets(dir: string = assetsDir()): ReadonlyMap<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const [path, { file, contentType }] of Object.entries(ASSET_FILES)) assets.set(path, { body: readFileSync(`${dir}/${file}`), contentType });
  return assets;
}

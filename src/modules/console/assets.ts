// The console's static files, all from this process: htmx, Pico CSS and <model-viewer> vendored
// from their npm packages (pinned in package.json), and the console's own stylesheet and script.
// Read once at start; served with a validator and a day's caching.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { App } from '../../app-types.ts';

const require = createRequire(import.meta.url);
const own = (name: string) => new URL(`./assets/${name}`, import.meta.url);

const FILES: Record<string, { path: string | URL; type: string }> = {
  'htmx.min.js': { path: require.resolve('htmx.org/dist/htmx.min.js'), type: 'text/javascript' },
  'pico.min.css': { path: require.resolve('@picocss/pico/css/pico.min.css'), type: 'text/css' },
  'model-viewer.min.js': {
    path: require.resolve('@google/model-viewer/dist/model-viewer.min.js'),
    type: 'text/javascript',
  },
  'console.css': { path: own('console.css'), type: 'text/css' },
  'console.js': { path: own('console.js'), type: 'text/javascript' },
};

/** The URL of a console asset. */
export const asset = (name: keyof typeof FILES & string) => `/console/assets/${name}`;

/**
 * The CSP hashes ('sha256-…') of the stylesheets <model-viewer> writes into its shadow root as
 * <style> elements: a page with the viewer allows exactly these, never any other inline style.
 * Read from the vendored file, so an upgrade of the package brings its own.
 */
export const MODEL_VIEWER_STYLE_HASHES: readonly string[] = (() => {
  const text = readFileSync(FILES['model-viewer.min.js']?.path ?? '', 'utf8');
  const hashes = new Set<string>();
  for (const [, css] of text.matchAll(/<style>([\s\S]*?)<\/style>/g)) {
    // A stylesheet built from interpolated values has no fixed hash: there is none in 4.x.
    if (css === undefined || css.includes('${')) continue;
    hashes.add(`'sha256-${createHash('sha256').update(css).digest('base64')}'`);
  }
  return [...hashes];
})();

/** Serves the console's assets under /console/assets/. */
export function installAssets(app: App): void {
  const loaded = new Map(
    Object.entries(FILES).map(([name, file]) => {
      const body = readFileSync(file.path);
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
      return [name, { body, etag, type: file.type }];
    }),
  );
  app.get<{ Params: { name: string } }>('/console/assets/:name', { schema: { hide: true } }, (request, reply) => {
    const file = loaded.get(request.params.name);
    if (!file) return reply.code(404).type('text/plain').send('Not found');
    reply.header('etag', file.etag).header('cache-control', 'public, max-age=86400');
    if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
    return reply.type(`${file.type}; charset=utf-8`).send(file.body);
  });
}

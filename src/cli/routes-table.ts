// `npm run docs:routes`: writes the table of every catalog model and its routes, in order, into
// docs/providers.md (between its routes markers); `--check` only says whether the page is current.
// The table is built from the catalog and the adapters' mapping tables, so it cannot drift.
import { readFileSync, writeFileSync } from 'node:fs';
import { loadMediaCatalog } from '../catalog/media-models.ts';
import { loadModelCatalog, type ModelRoute } from '../catalog/models.ts';
import { catalogRoutes } from '../catalog/routes.ts';
import type { Mapping } from '../providers/mapping.ts';
import { VENDORS } from '../providers/vendors.ts';

const START = '<!-- routes:start (npm run docs:routes writes this table) -->';
const END = '<!-- routes:end -->';
const PAGE = new URL('../../docs/providers.md', import.meta.url);

const MAPPINGS: Record<string, Record<string, Mapping>> = Object.fromEntries(
  VENDORS.map((vendor) => [vendor.id, vendor.mappings]),
);

// The endpoint each catalog list is used by.
const OPERATIONS: Record<string, string> = {
  image: 'images/generate',
  edit: 'images/edit',
  face: 'images/generate-face',
  influencer: 'influencer images',
  video: 'videos/generate',
  lipsync: 'videos/lipsync',
  talking_head: 'videos/talking-head',
  reference_video: 'videos/reference-to-video',
  upscalers: 'videos/upscale',
  model_3d: 'models-3d/generate',
  text: 'text/generate',
  music: 'music/generate',
};

function describeRoute(route: ModelRoute): string {
  const served = (mapping: string | undefined) =>
    mapping !== undefined && MAPPINGS[route.provider]?.[mapping] !== undefined;
  const parts: string[] = [];
  if (served(route.mapping)) parts.push(`\`${route.endpoint}\``);
  if (route.image_endpoint && served(route.image_mapping)) parts.push(`with images \`${route.image_endpoint}\``);
  const params = route.params ? ` ${JSON.stringify(route.params)}` : '';
  if (parts.length === 0) return `${route.provider} \`${route.endpoint}\` (not mapped yet)`;
  return `${route.provider} ${parts.join(', ')}${params}`;
}

/** The markdown table of every catalog model with its routes in the order they are tried. */
export function routesTable(): string {
  const rows = catalogRoutes(loadModelCatalog(), loadMediaCatalog()).map(({ kind, model, routes, operation }) => {
    return `| ${operation ?? OPERATIONS[kind] ?? kind} | ${model} | ${routes.map(describeRoute).join(' → ')} |`;
  });
  return ['| operation | model | routes, in the order they are tried |', '|---|---|---|', ...rows].join('\n');
}

/** The page with its table block replaced by `table`. */
export function withTable(page: string, table: string): string {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/providers.md has no ${START} … ${END} block`);
  return `${page.slice(0, start + START.length)}\n${table}\n${page.slice(end)}`;
}

if (import.meta.main) {
  const page = readFileSync(PAGE, 'utf8');
  const next = withTable(page, routesTable());
  if (process.argv.includes('--check')) {
    if (next !== page) {
      console.error('docs/providers.md is not current: run npm run docs:routes');
      process.exit(1);
    }
  } else if (next !== page) writeFileSync(PAGE, next);
}

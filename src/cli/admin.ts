// The admin CLI: a thin client of the admin API (/admin/v1) that prints JSON.
//   npm run -s admin -- teams create --name acme --credits 500
// It talks to GMS_URL (default http://localhost:$PORT or 8080) with ADMIN_TOKEN, or with the
// token that a local start saved in $DATA_DIR/credentials.json.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  type DocumentFormat,
  documentFormat,
  formatDocument,
  formatOfPath,
  parseDocument,
} from '../lib/config-document.ts';

const USAGE = `Usage: npm run -s admin -- <command> [options]

  teams create --name <name> [--credits <n>]
  teams list [--limit <n>] [--before <team_id>]
  teams get <team_id>
  keys create --team <team_id> [--name <name>]
  keys list --team <team_id>
  keys revoke <key_id>
  credits grant --team <team_id> --amount <n> --reason <text>   (negative amount: correction)
  ledger --team <team_id> [--limit <n>] [--before <entry_id>]
  workspaces create --team <team_id> --name <name>
  workspaces list --team <team_id>
  webhook-secret get --team <team_id>
  webhook-secret rotate --team <team_id>
  storyboards import --team <team_id> --file <project.json>   (--file - reads standard input)
  providers list                      (each provider, the models it serves, routes cooling down)
  providers check                     (one harmless authenticated call per configured provider)
  generations attempts <generation_id>   (every vendor attempt of a generation's items)
  teams set <team_id> [--multiplier <n>] [--allow <kind:model,...>] [--deny <kind:model,...>]
                      (price multiplier; models open to the team; '' empties a list)
  models get <kind> <model>           (its price and availability now, and what was overridden)
  models set <kind> <model> [--price <json>|catalog] [--available true|false|catalog]
  aliases list
  aliases get <alias>
  aliases set <alias> --kind <kind> --model <model>
  aliases delete <alias>
  models routes <kind> <model>        (its vendor routes now, and whether they are the catalog's)
  models set-routes <kind> <model> --file <routes.json>|catalog
                                      (a JSON list [{provider, endpoint, mapping, tier, weight, enabled,
                                      image_endpoint?, image_mapping?, params?}])
  config export [--format json|yaml]  (the live configuration as one document, JSON by default)
  config apply --file <config.json|config.yaml> [--format json|yaml] [--dry-run]
                                      (the differences, applied in one transaction unless --dry-run;
                                      a file named .yaml or .yml is YAML, any other JSON, unless
                                      --format says; --file - reads standard input)
  credentials list [--provider <id>]   (vendor keys: the environment's read-only, the added ones)
  credentials add --provider <id> --name <name> [--base-url <url>] [--weight <n>] [--rpm <n>]
                  [--max-in-flight <n>]   (the secret from CREDENTIAL_SECRET, or standard input)
  credentials set <credential_id> [--name <name>] [--base-url <url>] [--weight <n>] [--rpm <n>]
                  [--max-in-flight <n>] [--enabled true|false] [--secret-stdin]
  credentials delete <credential_id>
  audit [--limit <n>] [--cursor <next_cursor>]   (changes made through the admin API, newest first)
  reports margin --from <ISO time> --to <ISO time> [--group-by model|vendor|team] [--csv]
                                      (revenue against vendor cost in US dollars; --csv prints CSV)

Environment: GMS_URL (default http://localhost:8080), ADMIN_TOKEN (default: from $DATA_DIR/credentials.json)`;

class UsageError extends Error {}

interface Request {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
  /** The answer's document printed in this format (JSON when unset). */
  output?: DocumentFormat;
}

type Options = Record<string, string | boolean | undefined>;

/** An option given as text (a flag given alone is not one). */
const text = (value: string | boolean | undefined) => (typeof value === 'string' ? value : undefined);

function need(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function integer(value: string, name: string): number {
  if (!/^-?\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}

/** A value read from a file, or from standard input for '-', as JSON unless `format` says YAML. */
function jsonValue(path: string, format: DocumentFormat = 'json'): unknown {
  let text: string;
  try {
    text = readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (err) {
    throw new UsageError(`--file: cannot read ${path} (${(err as { code?: string }).code ?? String(err)})`);
  }
  let value: unknown;
  try {
    value = parseDocument(text, format);
  } catch (err) {
    throw new UsageError(`--file: ${path} is not ${format === 'yaml' ? 'YAML' : 'JSON'} (${(err as Error).message})`);
  }
  return value;
}

/** An object read from a file, or from standard input for '-' (JSON unless `format` says YAML). */
function jsonFile(path: string, format: DocumentFormat = 'json'): Record<string, unknown> {
  const value = jsonValue(path, format);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`--file: ${path} must hold one ${format === 'yaml' ? 'YAML mapping' : 'JSON object'}`);
  }
  return value as Record<string, unknown>;
}

/** The `--format` option (json or yaml), when given. */
function formatOption(options: Options): DocumentFormat | undefined {
  try {
    return documentFormat(text(options.format));
  } catch (err) {
    throw new UsageError(`--format: ${(err as Error).message}`);
  }
}

/** A price object given as JSON, or `catalog` (null: back to the catalog's price). */
function priceOption(value: string): Record<string, unknown> | null {
  if (value === 'catalog') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new UsageError('--price must be a JSON object (e.g. \'{"credits_per_image":5}\') or catalog');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError('--price must be a JSON object or catalog');
  }
  return parsed as Record<string, unknown>;
}

function availableOption(value: string): boolean | null {
  if (value === 'catalog') return null;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new UsageError('--available must be true, false or catalog');
}

/** A comma-separated list of kind:model entries ('' is the empty list). */
const modelList = (value: string) => value.split(',').filter((entry) => entry !== '');

function query(options: Options): string {
  const params = new URLSearchParams();
  if (typeof options.limit === 'string' && options.limit) params.set('limit', options.limit);
  if (typeof options.before === 'string' && options.before) params.set('before', options.before);
  if (typeof options.cursor === 'string' && options.cursor) params.set('cursor', options.cursor);
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** A credential's secret: CREDENTIAL_SECRET, else the first line of standard input (never an argument). */
function credentialSecret(): string {
  const secret = process.env.CREDENTIAL_SECRET ?? readFileSync(0, 'utf8').split('\n')[0]?.trim() ?? '';
  if (!secret) throw new UsageError('Give the secret in CREDENTIAL_SECRET or on standard input');
  return secret;
}

/** The settings of a credential given as options. */
function credentialFields(options: Options): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const name = text(options.name);
  const baseUrl = text(options['base-url']);
  if (name !== undefined) body.name = name;
  if (baseUrl !== undefined) body.base_url = baseUrl;
  for (const [option, field] of [
    ['weight', 'weight'],
    ['rpm', 'rpm'],
    ['max-in-flight', 'max_in_flight'],
  ] as const) {
    const value = text(options[option]);
    if (value !== undefined) body[field] = integer(value, option);
  }
  const enabled = text(options.enabled);
  if (enabled !== undefined) {
    if (enabled !== 'true' && enabled !== 'false') throw new UsageError('--enabled must be true or false');
    body.enabled = enabled === 'true';
  }
  return body;
}

/** Maps a command line to one admin API call. */
function toRequest(words: string[], options: Options): Request {
  const [group, action, target] = words;
  const team = () => encodeURIComponent(need(options, 'team'));
  const id = (label: string) => {
    if (!target) throw new UsageError(`${group} ${action} needs the ${label}`);
    return encodeURIComponent(target);
  };
  switch (`${group} ${action ?? ''}`.trim()) {
    case 'teams create':
      return {
        method: 'POST',
        path: '/admin/v1/teams',
        body: {
          name: need(options, 'name'),
          ...(typeof options.credits === 'string' ? { credits: integer(options.credits, 'credits') } : {}),
        },
      };
    case 'teams list':
      return { method: 'GET', path: `/admin/v1/teams${query(options)}` };
    case 'teams get':
      return { method: 'GET', path: `/admin/v1/teams/${id('team id')}` };
    case 'keys create':
      return {
        method: 'POST',
        path: `/admin/v1/teams/${team()}/api-keys`,
        body: options.name ? { name: options.name } : {},
      };
    case 'keys list':
      return { method: 'GET', path: `/admin/v1/teams/${team()}/api-keys` };
    case 'keys revoke':
      return { method: 'DELETE', path: `/admin/v1/api-keys/${id('key id')}` };
    case 'credits grant':
      return {
        method: 'POST',
        path: `/admin/v1/teams/${team()}/credits`,
        body: { amount: integer(need(options, 'amount'), 'amount'), reason: need(options, 'reason') },
      };
    case 'ledger':
      return { method: 'GET', path: `/admin/v1/teams/${team()}/ledger${query(options)}` };
    case 'workspaces create':
      return { method: 'POST', path: `/admin/v1/teams/${team()}/workspaces`, body: { name: need(options, 'name') } };
    case 'workspaces list':
      return { method: 'GET', path: `/admin/v1/teams/${team()}/workspaces` };
    case 'webhook-secret get':
      return { method: 'GET', path: `/admin/v1/teams/${team()}/webhook-secret` };
    case 'webhook-secret rotate':
      return { method: 'POST', path: `/admin/v1/teams/${team()}/webhook-secret` };
    case 'providers list':
      return { method: 'GET', path: '/admin/v1/providers' };
    case 'providers check':
      return { method: 'GET', path: '/admin/v1/providers?check=true' };
    case 'generations attempts':
      return { method: 'GET', path: `/admin/v1/generations/${id('generation id')}/attempts` };
    case 'teams set': {
      const body: Record<string, unknown> = {};
      const multiplier = text(options.multiplier);
      const allow = text(options.allow);
      const deny = text(options.deny);
      if (multiplier !== undefined) {
        const n = Number(multiplier);
        if (!Number.isFinite(n) || n <= 0) throw new UsageError('--multiplier must be a number above 0');
        body.price_multiplier = n;
      }
      if (allow !== undefined) body.allowed_models = modelList(allow);
      if (deny !== undefined) body.denied_models = modelList(deny);
      if (Object.keys(body).length === 0) throw new UsageError('teams set needs --multiplier, --allow or --deny');
      return { method: 'PATCH', path: `/admin/v1/teams/${id('team id')}`, body };
    }
    case 'models routes':
    case 'models set-routes': {
      const model = words[3];
      if (!target || !model) throw new UsageError(`models ${action} needs the kind and the model`);
      const path = `/admin/v1/models/${encodeURIComponent(target)}/${encodeURIComponent(model)}/routes`;
      if (action === 'routes') return { method: 'GET', path };
      const file = need(options, 'file');
      if (file === 'catalog') return { method: 'DELETE', path };
      return { method: 'PUT', path, body: { routes: jsonValue(file) } };
    }
    case 'config export':
      return { method: 'GET', path: '/admin/v1/config', output: formatOption(options) };
    case 'config apply': {
      const file = need(options, 'file');
      const format = formatOption(options) ?? formatOfPath(file);
      return {
        method: 'POST',
        path: '/admin/v1/config/apply',
        body: { document: jsonFile(file, format), dry_run: options['dry-run'] === true },
      };
    }
    case 'models get':
    case 'models set': {
      const model = words[3];
      if (!target || !model) throw new UsageError(`models ${action} needs the kind and the model`);
      const path = `/admin/v1/models/${encodeURIComponent(target)}/${encodeURIComponent(model)}`;
      if (action === 'get') return { method: 'GET', path };
      const body: Record<string, unknown> = {};
      const price = text(options.price);
      const available = text(options.available);
      if (price !== undefined) body.price = priceOption(price);
      if (available !== undefined) body.available = availableOption(available);
      if (Object.keys(body).length === 0) throw new UsageError('models set needs --price or --available');
      return { method: 'PATCH', path, body };
    }
    case 'aliases list':
      return { method: 'GET', path: '/admin/v1/aliases' };
    case 'aliases get':
      return { method: 'GET', path: `/admin/v1/aliases/${id('alias')}` };
    case 'aliases set':
      return {
        method: 'PUT',
        path: `/admin/v1/aliases/${id('alias')}`,
        body: { kind: need(options, 'kind'), model: need(options, 'model') },
      };
    case 'aliases delete':
      return { method: 'DELETE', path: `/admin/v1/aliases/${id('alias')}` };
    case 'credentials list': {
      const provider = text(options.provider);
      return {
        method: 'GET',
        path: `/admin/v1/credentials${provider ? `?${new URLSearchParams({ provider })}` : ''}`,
      };
    }
    case 'credentials add':
      return {
        method: 'POST',
        path: '/admin/v1/credentials',
        body: {
          provider: need(options, 'provider'),
          name: need(options, 'name'),
          ...credentialFields(options),
          secret: credentialSecret(),
        },
      };
    case 'credentials set': {
      const body = credentialFields(options);
      if (options['secret-stdin']) body.secret = credentialSecret();
      if (Object.keys(body).length === 0) throw new UsageError('credentials set needs something to change');
      return { method: 'PATCH', path: `/admin/v1/credentials/${id('credential id')}`, body };
    }
    case 'credentials delete':
      return { method: 'DELETE', path: `/admin/v1/credentials/${id('credential id')}` };
    case 'audit':
      return { method: 'GET', path: `/admin/v1/audit${query(options)}` };
    case 'reports margin': {
      const params = new URLSearchParams({
        from: need(options, 'from'),
        to: need(options, 'to'),
        group_by: typeof options['group-by'] === 'string' ? options['group-by'] : 'model',
        ...(options.csv ? { format: 'csv' } : {}),
      });
      return { method: 'GET', path: `/admin/v1/reports/margin?${params}` };
    }
    case 'storyboards import':
      return { method: 'POST', path: `/admin/v1/teams/${team()}/storyboards`, body: jsonFile(need(options, 'file')) };
    default:
      throw new UsageError(words.length ? `Unknown command: ${words.join(' ')}` : 'No command given');
  }
}

function adminToken(): string {
  if (process.env.ADMIN_TOKEN) return process.env.ADMIN_TOKEN;
  const file = join(process.env.DATA_DIR || '.data', 'credentials.json');
  if (existsSync(file)) {
    const token = (JSON.parse(readFileSync(file, 'utf8')) as { admin_token?: string }).admin_token;
    if (token) return token;
  }
  throw new UsageError(`Set ADMIN_TOKEN (no ${file} with a saved token was found)`);
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    options: {
      name: { type: 'string' },
      credits: { type: 'string' },
      team: { type: 'string' },
      amount: { type: 'string' },
      reason: { type: 'string' },
      limit: { type: 'string' },
      before: { type: 'string' },
      file: { type: 'string' },
      cursor: { type: 'string' },
      multiplier: { type: 'string' },
      allow: { type: 'string' },
      deny: { type: 'string' },
      price: { type: 'string' },
      available: { type: 'string' },
      kind: { type: 'string' },
      model: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      'group-by': { type: 'string' },
      provider: { type: 'string' },
      'base-url': { type: 'string' },
      weight: { type: 'string' },
      rpm: { type: 'string' },
      'max-in-flight': { type: 'string' },
      enabled: { type: 'string' },
      'secret-stdin': { type: 'boolean' },
      csv: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      format: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    allowNegative: false,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const { help: _help, ...options } = values;
  const request = toRequest(positionals, options);
  const base = process.env.GMS_URL || `http://localhost:${process.env.PORT || 8080}`;
  const response = await fetch(new URL(request.path, base), {
    method: request.method,
    headers: {
      authorization: `Bearer ${adminToken()}`,
      ...(request.body ? { 'content-type': 'application/json' } : {}),
    },
    body: request.body ? JSON.stringify(request.body) : undefined,
  });
  const text = await response.text();
  if (response.ok && (response.headers.get('content-type') ?? '').startsWith('text/csv')) {
    process.stdout.write(text);
    return 0;
  }
  if (response.ok && request.output === 'yaml') {
    process.stdout.write(formatDocument(JSON.parse(text), 'yaml'));
    return 0;
  }
  const output = text
    ? JSON.stringify(JSON.parse(text), null, 2)
    : JSON.stringify({ ok: true, status: response.status });
  (response.ok ? process.stdout : process.stderr).write(`${output}\n`);
  return response.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    const usage = err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    const message = err instanceof Error ? err.message : String(err);
    const hint =
      (err as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED' ? ' (is the service running?)' : '';
    process.stderr.write(
      `${JSON.stringify({ error: { message: `${message}${hint}` } })}\n${usage ? `\n${USAGE}\n` : ''}`,
    );
    process.exit(2);
  },
);

// A command's request body: --body (JSON, or @file), then the command's own flags, then each
// --set key=value (dotted keys nest: settings.duration=10; values are JSON where they parse as
// JSON, text otherwise). Fields left unset are not sent, so the service applies its defaults.
import { readFile } from 'node:fs/promises';

export interface BodyOptions {
  model?: string;
  set?: string[];
  body?: string;
  workspace?: string;
  webhook?: string;
}

function put(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const keys = dotted.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys.at(-1) as string] = value;
}

function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Thrown for a malformed --body or --set (a usage error). */
export class BodyError extends Error {}

/**
 * The body from the options and the command's `fields` (dotted keys; undefined ones are left out).
 * `model: false` for the commands whose endpoint takes no model.
 */
export async function bodyFrom(
  options: BodyOptions,
  fields: Record<string, unknown>,
  { model = true }: { model?: boolean } = {},
): Promise<Record<string, unknown>> {
  let body: Record<string, unknown> = {};
  if (options.body) {
    const text = options.body.startsWith('@') ? await readFile(options.body.slice(1), 'utf8') : options.body;
    const parsed = parseValue(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new BodyError('--body must be a JSON object (or @file holding one)');
    }
    body = parsed as Record<string, unknown>;
  }
  const all = {
    ...fields,
    ...(model ? { model: options.model } : {}),
    workspace_id: options.workspace,
    webhook: options.webhook,
  };
  for (const [key, value] of Object.entries(all)) if (value !== undefined) put(body, key, value);
  for (const pair of options.set ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new BodyError(`--set ${pair}: expected key=value`);
    put(body, pair.slice(0, at), parseValue(pair.slice(at + 1)));
  }
  return body;
}

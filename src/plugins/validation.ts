import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import type { ErrorDetail } from '../lib/errors.ts';

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
    ...options,
  });
  addFormats.default(ajv);
  return ajv;
}

/**
 * Bodies are validated strictly (a string is never silently turned into a number); query strings,
 * params and headers arrive as text and are coerced to the declared types.
 */
export function installValidators(app: FastifyInstance, sharedSchemas: object[]): void {
  const strict = makeAjv({ coerceTypes: false });
  const coercing = makeAjv({ coerceTypes: 'array' });
  for (const schema of sharedSchemas) {
    strict.addSchema(schema);
    coercing.addSchema(schema);
  }
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? strict.compile(schema) : coercing.compile(schema),
  );
}

function fieldPath(error: ErrorObject, context: string | undefined): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    segments.push(params.missingProperty);
  } else if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    segments.push(params.additionalProperty);
  }
  let out = '';
  for (const s of segments) out += /^\d+$/.test(s) ? `[${s}]` : out ? `.${s}` : s;
  return out || (context ?? 'body');
}

function describe(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'enum':
      return `must be one of: ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'additionalProperties':
      return 'is not an accepted field';
    default:
      return error.message ?? 'is invalid';
  }
}

/** One `{field, message}` per bad field, from Ajv's errors (first, most specific error wins). */
export function validationDetails(errors: ErrorObject[], context: string | undefined): ErrorDetail[] {
  const byField = new Map<string, { consts: unknown[]; messages: string[] }>();
  for (const error of errors) {
    const field = fieldPath(error, context);
    let entry = byField.get(field);
    if (!entry) {
      entry = { consts: [], messages: [] };
      byField.set(field, entry);
    }
    if (error.keyword === 'const') entry.consts.push((error.params as { allowedValue: unknown }).allowedValue);
    else if (error.keyword !== 'anyOf' && error.keyword !== 'oneOf' && error.keyword !== 'if') {
      entry.messages.push(describe(error));
    }
  }
  const details: ErrorDetail[] = [];
  for (const [field, entry] of byField) {
    const message =
      entry.consts.length > 0
        ? `must be one of: ${entry.consts.map(String).join(', ')}`
        : (entry.messages[0] ?? 'is invalid');
    details.push({ field, message });
  }
  return details;
}

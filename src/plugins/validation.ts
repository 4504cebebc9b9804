import { Ajv, type ErrorObject, type Options } from 'ajv';
import unevaluatedVocabulary from 'ajv/dist/vocabularies/unevaluated/index.js';
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
  // The draft-07 class knows unevaluatedProperties only when given the vocabulary.
  if (options.unevaluated) ajv.addVocabulary(unevaluatedVocabulary.default);
  return ajv;
}

/**
 * Request bodies of these paths refuse fields their schema does not declare. Other bodies (the
 * OpenAI-compatible door, whose clients send fields of their own) are validated as written;
 * vendor and payment webhooks read raw bodies and have no body schema.
 */
const STRICT_BODY_PATHS = /^\/(api|admin)\//;

/**
 * Bodies are validated strictly (a string is never silently turned into a number, an unknown
 * field is refused); query strings, params and headers arrive as text and are coerced to the
 * declared types, and unknown query parameters are let through (links carry tracking
 * parameters, and an ignored query parameter is never charged for).
 */
export function installValidators(app: FastifyInstance, sharedSchemas: object[]): void {
  const strict = makeAjv({ coerceTypes: false, unevaluated: true });
  const coercing = makeAjv({ coerceTypes: 'array' });
  for (const schema of sharedSchemas) {
    strict.addSchema(schema);
    coercing.addSchema(schema);
  }
  app.setValidatorCompiler(({ schema, httpPart, url }) => {
    if (httpPart !== 'body') return coercing.compile(schema);
    return STRICT_BODY_PATHS.test(url) ? strictBodyValidator(strict, schema) : strict.compile(schema);
  });
}

// ---- unknown fields -----------------------------------------------------------------------------

type SchemaNode = Record<string, unknown>;

const isNode = (value: unknown): value is SchemaNode =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keywords by which a schema says itself what other properties its objects may have. */
const OPENNESS_KEYWORDS = ['additionalProperties', 'unevaluatedProperties', 'patternProperties'];

/** Keywords whose subschemas describe the same object as the schema that holds them. */
const SAME_OBJECT_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'then', 'else'];

/** Keywords whose subschemas describe values inside the object or array. */
const CHILD_KEYWORDS = ['additionalProperties', 'unevaluatedProperties', 'items', 'additionalItems', 'contains'];

function mapValues(node: SchemaNode, f: (value: unknown) => unknown): SchemaNode {
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, f(value)]));
}

/** The members of allOf/anyOf/oneOf and then/else of a schema, as one list. */
function sameObjectMembers(node: SchemaNode): unknown[] {
  return SAME_OBJECT_KEYWORDS.flatMap((keyword) => {
    const value = node[keyword];
    return Array.isArray(value) ? value : value === undefined ? [] : [value];
  });
}

/**
 * A copy of a body schema in which every object with declared properties refuses others:
 * `additionalProperties: false` on an object that stands alone; `unevaluatedProperties: false`
 * where allOf (or then/else, or anyOf/oneOf beside its own properties) adds properties to the
 * same object, since additionalProperties sees only the properties of its own schema object and
 * would refuse the members'. The members of a bare anyOf/oneOf are whole alternatives and are
 * closed one by one. A schema that sets additionalProperties, unevaluatedProperties or
 * patternProperties itself is kept as it is (`additionalProperties: true` means "anything"), and
 * so are `not`, `if` and `$ref` targets: closing those would change what they accept. The
 * original is not changed (Fastify also serializes and documents with it).
 */
export function refuseUnknownFields(schema: unknown): unknown {
  return closeSchema(schema, false);
}

/** `coveredByParent`: an enclosing schema already refuses what none of its parts declares. */
function closeSchema(schema: unknown, coveredByParent: boolean): unknown {
  if (Array.isArray(schema)) return schema.map((item) => closeSchema(item, false));
  if (!isNode(schema)) return schema;
  const out: SchemaNode = { ...schema };
  for (const keyword of ['properties', 'patternProperties']) {
    const children = schema[keyword];
    if (isNode(children)) out[keyword] = mapValues(children, (child) => closeSchema(child, false));
  }
  for (const keyword of [...CHILD_KEYWORDS, 'prefixItems']) {
    if (keyword in schema) out[keyword] = closeSchema(schema[keyword], false);
  }

  const declared = isNode(schema.properties);
  const explicit = OPENNESS_KEYWORDS.some((keyword) => keyword in schema);
  const members = sameObjectMembers(schema);
  const joined = 'allOf' in schema || 'then' in schema || 'else' in schema || (declared && members.length > 0);
  const membersCovered = coveredByParent || explicit || joined;
  for (const keyword of SAME_OBJECT_KEYWORDS) {
    const value = schema[keyword];
    if (Array.isArray(value)) out[keyword] = value.map((member) => closeSchema(member, membersCovered));
    else if (value !== undefined) out[keyword] = closeSchema(value, membersCovered);
  }

  if (coveredByParent || explicit) return out;
  const objectLike = (node: unknown) => isNode(node) && (node.type === 'object' || isNode(node.properties));
  if (joined && (objectLike(schema) || members.some(objectLike))) out.unevaluatedProperties = false;
  else if (!joined && declared) out.additionalProperties = false;
  return out;
}

/** A field's place in a body: property names, and `[]` for any item of an array. */
type FieldPattern = string[];

const ANY_ITEM = '[]';

/** Every field a body schema declares, at every level (alternatives included). */
function knownFields(schema: unknown, prefix: FieldPattern = [], out: FieldPattern[] = []): FieldPattern[] {
  if (!isNode(schema)) return out;
  if (isNode(schema.properties)) {
    for (const [name, child] of Object.entries(schema.properties)) {
      out.push([...prefix, name]);
      knownFields(child, [...prefix, name], out);
    }
  }
  for (const keyword of ['items', 'prefixItems', 'additionalItems']) {
    const items = schema[keyword];
    for (const item of Array.isArray(items) ? items : [items]) knownFields(item, [...prefix, ANY_ITEM], out);
  }
  for (const member of sameObjectMembers(schema)) knownFields(member, prefix, out);
  return out;
}

const isIndex = (segment: string) => /^\d+$/.test(segment);

/** `settings.duration`, `scenes[0].title`, `elements[].frontal_image_url`: as details name fields. */
function formatPath(segments: string[]): string {
  let out = '';
  for (const s of segments) out += s === ANY_ITEM ? '[]' : isIndex(s) ? `[${s}]` : out ? `.${s}` : s;
  return out;
}

/** How many leading segments of a known field's place the request's place matches. */
function sharedPrefix(pattern: FieldPattern, place: string[]): number {
  let n = 0;
  while (n < pattern.length && n < place.length) {
    const segment = pattern[n] as string;
    const actual = place[n] as string;
    if (segment === ANY_ITEM ? !isIndex(actual) : segment !== actual) break;
    n++;
  }
  return n;
}

/** A known field's path as the client would write it here: its own array indices where the places agree. */
function renderNear(pattern: FieldPattern, place: string[]): string {
  const shared = sharedPrefix(pattern, place);
  return formatPath(pattern.map((segment, i) => (i < shared ? (place[i] as string) : segment)));
}

/** Edit distance counting a swap of two neighbouring letters as one edit (`modle` → `model`). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => d[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

const MAX_SPELLING_DISTANCE = 2;

/** `workspaceId`, `Workspace-ID` and `workspace_id` are one name written three ways. */
const squash = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * How far a known name is from the one sent: 0 for the same name (at another level), 1 for the
 * same name written otherwise (case, `_`, `-`), 1 + edits for a near spelling; undefined when
 * too far to be what was meant (more than 2 edits, or half the shorter name or more).
 */
function nameDistance(known: string, sent: string): number | undefined {
  if (known === sent) return 0;
  if (squash(known) === squash(sent)) return 1;
  // The distance is at least the difference in length: a long name costs nothing to rule out.
  if (Math.abs(known.length - sent.length) > MAX_SPELLING_DISTANCE) return undefined;
  const edits = editDistance(known, sent);
  const shorter = Math.min(known.length, sent.length);
  return edits <= MAX_SPELLING_DISTANCE && edits * 2 < shorter ? 1 + edits : undefined;
}

/**
 * The declared field an unknown one most likely meant: the same name at another level first
 * (`duration` → `settings.duration`), then a near spelling (`promt` → `prompt`); among equals,
 * the one nearest the unknown field's place, then the shallowest.
 */
export function suggestField(known: FieldPattern[], place: string[], name: string): string | undefined {
  let best: { rank: number[]; path: string } | undefined;
  for (const pattern of known) {
    const leaf = pattern[pattern.length - 1] as string;
    const distance = nameDistance(leaf, name);
    if (distance === undefined) continue;
    const shared = sharedPrefix(pattern, place);
    // The unknown field's own place (an alternative that did not match) is no suggestion.
    if (distance === 0 && shared === pattern.length - 1 && pattern.length - 1 === place.length) continue;
    const rank = [distance, -shared, pattern.length];
    if (!best || compareRanks(rank, best.rank) < 0) best = { rank, path: renderNear(pattern, place) };
  }
  return best?.path;
}

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

/** The property an unknown-field error is about, if it is one. */
function unknownProperty(error: ErrorObject): string | undefined {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    return params.additionalProperty;
  }
  if (error.keyword === 'unevaluatedProperties' && typeof params.unevaluatedProperty === 'string') {
    return params.unevaluatedProperty;
  }
  return undefined;
}

function instanceSegments(error: ErrorObject): string[] {
  return error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** The most unknown fields of one body that get a suggestion (an error lists 20 details at most). */
const MAX_SUGGESTIONS = 50;

/** A body validator that refuses unknown fields and names, for each, the field it likely meant. */
function strictBodyValidator(ajv: Ajv, schema: unknown) {
  const closed = refuseUnknownFields(schema) as object;
  const check = ajv.compile(closed);
  const known = knownFields(closed);
  const validate = Object.assign(
    (data: unknown): boolean => {
      const valid = check(data);
      let suggested = 0;
      validate.errors = valid
        ? null
        : (check.errors ?? []).map((error) => {
            const name = unknownProperty(error);
            if (name === undefined || suggested >= MAX_SUGGESTIONS) return error;
            suggested++;
            const suggestion = suggestField(known, instanceSegments(error), name);
            return suggestion === undefined ? error : { ...error, params: { ...error.params, suggestion } };
          });
      return valid;
    },
    { errors: null as ErrorObject[] | null },
  );
  return validate;
}

// ---- error details ------------------------------------------------------------------------------

function fieldPath(error: ErrorObject, context: string | undefined): string {
  const segments = instanceSegments(error);
  const params = error.params as Record<string, unknown>;
  const unknown = unknownProperty(error);
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    segments.push(params.missingProperty);
  } else if (unknown !== undefined) {
    segments.push(unknown);
  }
  return formatPath(segments) || (context ?? 'body');
}

/** The detail message of an unknown field: `unknown field; did you mean 'settings.duration'?`. */
export function unknownFieldMessage(suggestion: string | undefined): string {
  return suggestion === undefined ? 'unknown field' : `unknown field; did you mean '${suggestion}'?`;
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
    case 'unevaluatedProperties':
      return unknownFieldMessage(typeof params.suggestion === 'string' ? params.suggestion : undefined);
    default:
      return error.message ?? 'is invalid';
  }
}

/** One bad field: its detail, and how the error's message names it. */
interface FieldProblem {
  detail: ErrorDetail;
  summary: string;
}

function fieldProblems(errors: ErrorObject[], context: string | undefined): FieldProblem[] {
  const byField = new Map<string, { consts: unknown[]; errors: ErrorObject[] }>();
  for (const error of errors) {
    const field = fieldPath(error, context);
    let entry = byField.get(field);
    if (!entry) {
      entry = { consts: [], errors: [] };
      byField.set(field, entry);
    }
    if (error.keyword === 'const') entry.consts.push((error.params as { allowedValue: unknown }).allowedValue);
    else if (error.keyword !== 'anyOf' && error.keyword !== 'oneOf' && error.keyword !== 'if') {
      entry.errors.push(error);
    }
  }
  const problems: FieldProblem[] = [];
  for (const [field, entry] of byField) {
    const first = entry.errors[0];
    const message =
      entry.consts.length > 0
        ? `must be one of: ${entry.consts.map(String).join(', ')}`
        : first
          ? describe(first)
          : 'is invalid';
    const suggestion =
      first && entry.consts.length === 0 ? (first.params as { suggestion?: unknown }).suggestion : undefined;
    const summary =
      first && entry.consts.length === 0 && unknownProperty(first) !== undefined
        ? `unknown field '${field}'${typeof suggestion === 'string' ? ` (did you mean '${suggestion}'?)` : ''}`
        : `${field} ${message}`;
    problems.push({ detail: { field, message }, summary });
  }
  return problems;
}

/** One `{field, message}` per bad field, from Ajv's errors (first, most specific error wins). */
export function validationDetails(errors: ErrorObject[], context: string | undefined): ErrorDetail[] {
  return fieldProblems(errors, context).map((p) => p.detail);
}

/**
 * The message and details of a validation failure. The message names the first `listed` bad
 * fields: `Invalid request: unknown field 'duration' (did you mean 'settings.duration'?); prompt is required`.
 */
export function validationProblem(
  errors: ErrorObject[],
  context: string | undefined,
  listed: number,
): { message: string; details: ErrorDetail[] } {
  const problems = fieldProblems(errors, context);
  const summary = problems
    .slice(0, listed)
    .map((p) => p.summary)
    .join('; ');
  return { message: `Invalid request: ${summary}`, details: problems.map((p) => p.detail) };
}

// A form from a request schema: the JSON Schema of an endpoint's body, read from the service's own
// OpenAPI document, becomes one control per property (nested objects as field sets), and the
// submitted form becomes the request body again. The playground page supplies the controls it
// knows better (model pickers, the team's workspaces and influencers) through `special`.
import type { App } from '../../app-types.ts';
import { attrs, type Html, html } from './html.ts';

/** A field of the form the API refused or that could not be read, and why. */
export type Detail = { field: string; message: string };

// ---- the request schema, from the OpenAPI document -----------------------------------------------

/** The part of JSON Schema the request bodies use. */
interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  default?: unknown;
  description?: string;
  examples?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
}

interface OpenApiOperation {
  summary?: string;
  description?: string;
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

interface OpenApiDocument {
  paths: Record<string, { post?: OpenApiOperation }>;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** A schema with its $ref (into components.schemas) followed. */
function resolve(doc: OpenApiDocument, schema: JsonSchema, depth = 0): JsonSchema {
  if (!schema.$ref || depth > 20) return schema;
  const name = decodeURIComponent(schema.$ref.replace(/^#\/components\/schemas\//, ''));
  const target = doc.components?.schemas?.[name];
  if (!target) throw new Error(`OpenAPI: unresolved $ref ${schema.$ref}`);
  return resolve(doc, target, depth + 1);
}

/** How one property is asked for. */
type Control =
  | { kind: 'group'; fields: Field[] }
  | { kind: 'select'; values: unknown[] }
  | { kind: 'checkbox' }
  | { kind: 'number'; integer: boolean }
  | { kind: 'lines' }
  | { kind: 'json' }
  | { kind: 'text'; long: boolean; url: boolean };

/** One property of the body: its dotted name (the form field's), schema, and control. */
export interface Field {
  name: string;
  key: string;
  schema: JsonSchema;
  /** Required in a body (its parent objects are too). */
  required: boolean;
  control: Control;
}

/** Properties that are never asked for: the console shows the result itself. */
const SKIPPED = new Set(['webhook']);
/** Text asked for in a text area whatever its length. */
const LONG_TEXT = new Set(['prompt', 'text', 'lyrics', 'script', 'dialog', 'system_prompt', 'negative_prompt']);

const typeOf = (schema: JsonSchema) =>
  Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : (schema.type ?? undefined);

/** The fixed choices of a schema (an enum, or a union of enums and constants), if it has them. */
function choicesOf(doc: OpenApiDocument, schema: JsonSchema): unknown[] | undefined {
  if (schema.enum) return schema.enum;
  if (schema.const !== undefined) return [schema.const];
  const union = schema.anyOf ?? schema.oneOf;
  if (!union) return undefined;
  const values: unknown[] = [];
  for (const branch of union.map((b) => resolve(doc, b))) {
    const own = choicesOf(doc, branch);
    if (!own) return undefined;
    values.push(...own);
  }
  return values;
}

function controlOf(doc: OpenApiDocument, key: string, schema: JsonSchema, name: string, required: boolean): Control {
  const choices = choicesOf(doc, schema);
  if (choices) return { kind: 'select', values: choices };
  const type = typeOf(schema);
  if (type === 'object' && schema.properties) return { kind: 'group', fields: fieldsOf(doc, schema, name, required) };
  if (type === 'boolean') return { kind: 'checkbox' };
  if (type === 'integer' || type === 'number') return { kind: 'number', integer: type === 'integer' };
  if (type === 'array') {
    const items = schema.items ? resolve(doc, schema.items) : {};
    return typeOf(items) === 'string' && !choicesOf(doc, items) ? { kind: 'lines' } : { kind: 'json' };
  }
  if (type === 'string') {
    const url = schema.format === 'uri';
    return { kind: 'text', long: !url && (LONG_TEXT.has(key) || (schema.maxLength ?? 0) >= 1000), url };
  }
  return { kind: 'json' };
}

function fieldsOf(doc: OpenApiDocument, object: JsonSchema, prefix: string, parentRequired: boolean): Field[] {
  const required = new Set(object.required ?? []);
  return Object.entries(object.properties ?? {})
    .filter(([key]) => !SKIPPED.has(key))
    .map(([key, raw]) => {
      const resolved = resolve(doc, raw);
      const schema = resolved.items ? { ...resolved, items: resolve(doc, resolved.items) } : resolved;
      const name = prefix ? `${prefix}.${key}` : key;
      const isRequired = parentRequired && required.has(key);
      return { name, key, schema, required: isRequired, control: controlOf(doc, key, schema, name, isRequired) };
    });
}

interface EndpointForm {
  operation: OpenApiOperation;
  fields: Field[];
}

// The document does not change while the process runs: each endpoint's form is read once.
const forms = new WeakMap<App, Map<string, EndpointForm>>();

/** An endpoint's operation and the fields of its JSON body, from the OpenAPI document. */
export function formOf(app: App, path: string): EndpointForm {
  let byPath = forms.get(app);
  if (!byPath) {
    byPath = new Map();
    forms.set(app, byPath);
  }
  const known = byPath.get(path);
  if (known) return known;
  const doc = app.swagger() as unknown as OpenApiDocument;
  const operation = doc.paths[path]?.post;
  const schema = operation?.requestBody?.content?.['application/json']?.schema;
  if (!operation || !schema) throw new Error(`OpenAPI: POST ${path} has no JSON body`);
  const form = { operation, fields: fieldsOf(doc, resolve(doc, schema), '', true) };
  byPath.set(path, form);
  return form;
}

// ---- the form's fields to a request body -------------------------------------------------------

function fieldValue(field: Field, form: Record<string, string>, problems: Detail[]): unknown {
  const { control, name } = field;
  const text = form[name] ?? '';
  switch (control.kind) {
    case 'group': {
      const object = collect(control.fields, form, problems);
      return Object.keys(object).length > 0 ? object : undefined;
    }
    case 'checkbox':
      // An unchecked box sends nothing: the API's default, unless that default is true.
      if (text === 'true' || text === 'on') return true;
      return field.schema.default === true ? false : undefined;
    case 'select':
      if (text === '') return undefined;
      return control.values.find((v) => String(v) === text) ?? text;
    case 'number': {
      if (text.trim() === '') return undefined;
      const n = Number(text.trim());
      if (!Number.isFinite(n)) problems.push({ field: name, message: 'must be a number' });
      return Number.isFinite(n) ? n : undefined;
    }
    case 'lines': {
      const lines = text
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => line !== '');
      return lines.length > 0 ? lines : undefined;
    }
    case 'json': {
      if (text.trim() === '') return undefined;
      try {
        return JSON.parse(text);
      } catch {
        problems.push({ field: name, message: 'must be JSON' });
        return undefined;
      }
    }
    case 'text':
      return text === '' ? undefined : text;
  }
}

function collect(fields: Field[], form: Record<string, string>, problems: Detail[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const value = fieldValue(field, form, problems);
    if (value !== undefined) out[field.key] = value;
  }
  return out;
}

/**
 * The request body a form stands for: numbers parsed, checkboxes as booleans, empty fields left
 * out, dotted names nested, one-per-line lists as arrays; and what could not be read.
 */
export function formToBody(
  fields: Field[],
  form: Record<string, string>,
): { body: Record<string, unknown>; problems: Detail[] } {
  const problems: Detail[] = [];
  return { body: collect(fields, form, problems), problems };
}

/** A value in words, as a control's default or a model's setting shows it. */
export const show = (value: unknown): string => {
  if (Array.isArray(value)) return value.map(show).join(', ');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return String(value);
};

// ---- rendering the form ----------------------------------------------------------------------------

export const idOf = (name: string) => `f-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;

const ACRONYMS: Record<string, string> = {
  url: 'URL',
  urls: 'URLs',
  id: 'ID',
  lora: 'LoRA',
  loras: 'LoRAs',
  fps: 'FPS',
};

/** A property's name as a label: `lora_url` is "LoRA URL". */
export function labelOf(key: string): string {
  const words = key.split('_').map((w) => ACRONYMS[w] ?? w);
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A sample value of a schema, for the placeholder of a JSON field. */
function sampleOf(schema: JsonSchema, depth = 0): unknown {
  if (schema.examples?.[0] !== undefined) return schema.examples[0];
  if (schema.enum?.[0] !== undefined) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const type = typeOf(schema);
  if (depth > 3) return null;
  if (type === 'object') {
    return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, sampleOf(v, depth + 1)]));
  }
  if (type === 'array') return [sampleOf(schema.items ?? {}, depth + 1)];
  if (type === 'integer' || type === 'number') return Math.min(Math.max(1, schema.minimum ?? 1), schema.maximum ?? 1);
  if (type === 'boolean') return false;
  if (schema.format === 'uri') return 'https://…';
  return '…';
}

export interface Choice {
  value: string;
  label: string;
  /** Shown but not choosable (a model this service cannot make now). */
  disabled?: boolean;
}

function constraints(field: Field): string {
  const { schema, control } = field;
  const parts: string[] = [];
  if (control.kind === 'number') {
    if (schema.minimum !== undefined && schema.maximum !== undefined)
      parts.push(`${schema.minimum} to ${schema.maximum}`);
    else if (schema.minimum !== undefined) parts.push(`at least ${schema.minimum}`);
    else if (schema.maximum !== undefined) parts.push(`at most ${schema.maximum}`);
  }
  if (control.kind === 'text' && schema.maxLength !== undefined) parts.push(`up to ${schema.maxLength} characters`);
  if (control.kind === 'lines') {
    const most = schema.maxItems === undefined ? '' : `, up to ${schema.maxItems}`;
    parts.push(`one ${schema.items?.format === 'uri' ? 'URL' : 'value'} per line${most}`);
  }
  if (control.kind === 'json') {
    const item = schema.items;
    const keys = item?.properties
      ? ` of objects {${Object.keys(item.properties)
          .map((k) => (item.required?.includes(k) ? `${k}*` : k))
          .join(', ')}}`
      : '';
    parts.push(`JSON${typeOf(schema) === 'array' ? `: an array${keys}` : ''}`);
  }
  return parts.join('; ');
}

/** The help text under a control: the property's description, and its limits when the control is its own. */
function help(field: Field, limits = true): Html {
  const text = [field.schema.description, limits ? constraints(field) : ''].filter(Boolean).join(' · ');
  return text ? html`<small id="${idOf(field.name)}-help">${text}</small>` : html``;
}

function label(field: Field, text = labelOf(field.key)): Html {
  return html`<label for="${idOf(field.name)}">${text}${
    field.required ? html` <span class="muted">(required)</span>` : ''
  }</label>`;
}

const placeholderOf = (schema: JsonSchema): string | undefined => {
  const example = schema.examples?.[0];
  if (example === undefined) return undefined;
  return typeof example === 'string' ? example : JSON.stringify(example);
};

interface SelectOptions {
  chosen?: string;
  /** The label of the control, when not the property's name. */
  label?: string;
  /** What the empty choice says. */
  none?: string;
  /** The choices are not the schema's (a list read from the API): its limits do not apply. */
  listed?: boolean;
  extra?: Html;
}

export function selectControl(field: Field, choices: Choice[], options: SelectOptions = {}): Html {
  const { chosen, listed = false } = options;
  const hasChosen = chosen !== undefined && choices.some((c) => c.value === chosen);
  const helpText = help(field, !listed);
  return html`${label(field, options.label)}<select ${attrs({
    id: idOf(field.name),
    name: field.name,
    required: field.required,
    'aria-describedby': helpText.text ? `${idOf(field.name)}-help` : undefined,
  })} ${options.extra ?? ''}>
<option value="" ${attrs({ selected: !hasChosen })}>${options.none ?? (field.required ? '(choose)' : '(the default)')}</option>
${choices.map((c) => html`<option ${attrs({ value: c.value, selected: c.value === chosen, disabled: c.disabled === true })}>${c.label}</option>`)}
</select>${helpText}`;
}

/**
 * The control of one property: `special` answers for the properties the page asks for its own
 * way (undefined leaves the property to its schema); nested objects pass it on.
 */
export function renderField(field: Field, special: (field: Field) => Html | undefined): Html {
  const own = special(field);
  if (own !== undefined) return own;
  const { schema, control, name } = field;
  const id = idOf(name);
  const described = { 'aria-describedby': help(field).text ? `${id}-help` : undefined };
  const fallback = schema.default === undefined ? undefined : show(schema.default);

  switch (control.kind) {
    case 'group':
      return html`<fieldset id="${id}"><legend>${labelOf(field.key)}</legend>${help(field)}
${control.fields.map((f) => renderField(f, special))}
</fieldset>`;
    case 'select':
      return selectControl(
        field,
        control.values.map((v) => ({ value: String(v), label: String(v) })),
        { chosen: fallback },
      );
    case 'checkbox':
      return html`<label for="${id}"><input ${attrs({
        type: 'checkbox',
        role: 'switch',
        id,
        name,
        value: 'true',
        checked: schema.default === true,
        ...described,
      })}> ${labelOf(field.key)}</label>${help(field)}`;
    case 'number':
      return html`${label(field)}<input ${attrs({
        type: 'number',
        id,
        name,
        required: field.required,
        min: schema.minimum,
        max: schema.maximum,
        step: control.integer ? 1 : 'any',
        value: fallback,
        inputmode: control.integer ? 'numeric' : 'decimal',
        ...described,
      })}>${help(field)}`;
    case 'lines':
      return html`${label(field)}<textarea ${attrs({
        id,
        name,
        rows: 3,
        required: field.required,
        placeholder: 'https://…',
        ...described,
      })}>${Array.isArray(schema.default) ? schema.default.join('\n') : ''}</textarea>${help(field)}`;
    case 'json':
      return html`${label(field)}<textarea ${attrs({
        id,
        name,
        rows: 4,
        required: field.required,
        spellcheck: 'false',
        placeholder: JSON.stringify(sampleOf(schema)),
        ...described,
      })}>${schema.default === undefined ? '' : JSON.stringify(schema.default, null, 2)}</textarea>${help(field)}`;
    case 'text': {
      const common = {
        id,
        name,
        required: field.required,
        maxlength: schema.maxLength,
        placeholder: placeholderOf(schema),
        ...described,
      };
      if (control.long) {
        return html`${label(field)}<textarea ${attrs({ ...common, rows: field.key === 'prompt' || field.key === 'text' ? 4 : 2 })}>${fallback ?? ''}</textarea>${help(field)}`;
      }
      return html`${label(field)}<input ${attrs({
        ...common,
        type: control.url ? 'url' : 'text',
        pattern: schema.pattern,
        value: fallback,
      })}>${help(field)}`;
    }
  }
}

// Typed HTML templates for the console: `html` is a tagged template whose every interpolated value
// is escaped unless it is already Html (another template, or `raw` for markup we wrote). Arrays
// are joined; null, undefined and false render nothing. So a page is plain TypeScript functions
// returning Html, checked by the compiler, with no build step and no way to forget an escape.

const HTML = Symbol('html');

/** Markup that is safe to send as it is. */
export interface Html {
  readonly [HTML]: true;
  readonly text: string;
}

/** What a template may interpolate. */
export type Renderable = Html | string | number | bigint | boolean | null | undefined | readonly Renderable[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text escaped for an element's content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

const isHtml = (value: unknown): value is Html =>
  typeof value === 'object' && value !== null && (value as { [HTML]?: true })[HTML] === true;

function render(value: Renderable): string {
  if (value === null || value === undefined || value === false) return '';
  if (isHtml(value)) return value.text;
  if (Array.isArray(value)) return (value as readonly Renderable[]).map(render).join('');
  return escapeHtml(String(value));
}

/** Markup we wrote ourselves, sent unescaped. Never pass it anything a user sent. */
export function raw(text: string): Html {
  return { [HTML]: true, text };
}

/** A template: the literal parts as written, every value escaped (Html values as they are). */
export function html(strings: TemplateStringsArray, ...values: Renderable[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i] as Renderable) + (strings[i + 1] ?? '');
  return raw(out);
}

/** Attributes from an object: `true` writes the bare name, false/null/undefined leave it out. */
export function attrs(values: Record<string, string | number | boolean | null | undefined>): Html {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    if (value === false || value === null || value === undefined) continue;
    if (!/^[a-zA-Z_:][-a-zA-Z0-9_:.]*$/.test(name)) throw new Error(`Not an attribute name: ${name}`);
    parts.push(value === true ? name : `${name}="${escapeHtml(String(value))}"`);
  }
  return raw(parts.join(' '));
}

// What the operator's vendor pages share: an admin API call whose refusal becomes an error box to
// show beside the form that caused it, and the reading of a form's whole numbers.
import type { ApiErrorBody, ApiMethod } from '../api.ts';
import type { Html } from '../html.ts';
import { errorBox } from '../layout.ts';
import type { ConsoleContext } from '../types.ts';

export type Outcome<T> = { ok: true; body: T } | { ok: false; status: number; box: Html };

/** Calls the admin API; a refusal becomes an error box in the API's words. */
export async function attemptAdmin<T>(
  ctx: ConsoleContext,
  method: ApiMethod,
  path: string,
  body?: unknown,
): Promise<Outcome<T>> {
  const answer = await ctx.callApi<T>(method, path, { body });
  if (answer.status < 400) return { ok: true, body: answer.body };
  const error = typeof answer.body === 'object' ? (answer.body as ApiErrorBody | undefined)?.error : undefined;
  return {
    ok: false,
    status: answer.status,
    box: errorBox(error?.message ?? `The admin API answered ${answer.status}`, error?.details),
  };
}

/** A refusal the console makes itself, before asking the API. */
export const refusal = (status: number, message: string): Outcome<never> => ({
  ok: false,
  status,
  box: errorBox(message),
});

/**
 * A form's number field: empty gives `empty`, a whole number a number, anything else the text as it
 * was typed, for the API to refuse in its words.
 */
export function wholeOr<E>(value: string | undefined, empty: E): number | string | E {
  const text = (value ?? '').trim();
  if (text === '') return empty;
  return /^-?\d{1,15}$/.test(text) ? Number(text) : text;
}

/** A timestamp as people read it (UTC). */
export const readable = (iso: string): string => `${iso.slice(0, 19).replace('T', ' ')} UTC`;

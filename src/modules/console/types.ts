// The shapes every console page shares: what a handler gets and what it answers.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../app-types.ts';
import type { GenerationWatch } from '../generations/events.ts';
import type { ApiAnswer, ApiMethod, CallOptions } from './api.ts';
import type { Html } from './html.ts';
import type { ConsoleSession } from './session.ts';

/** What a console handler gets. */
export interface ConsoleContext {
  app: App;
  request: FastifyRequest;
  reply: FastifyReply;
  session: ConsoleSession;
  /** The form fields of a POST (urlencoded); empty for a GET. */
  form: Record<string, string>;
  /** The query string's parameters. */
  query: Record<string, string>;
  /** The path's parameters. */
  params: Record<string, string>;
  /** Whether htmx made the request (answer a fragment, not a page). */
  htmx: boolean;
  /** The process's live status streams. */
  watch: GenerationWatch;
  /** Calls the API as the session's credential and answers its body (errors thrown as ApiCallError). */
  api<T>(method: ApiMethod, path: string, options?: CallOptions): Promise<T>;
  /** Calls the API as the session's credential and answers status, body and headers, whatever the status. */
  callApi<T>(method: ApiMethod, path: string, options?: CallOptions): Promise<ApiAnswer<T>>;
}

/** Where to send the browser instead of a page. */
export interface Redirect {
  redirect: string;
}

export interface ConsoleRoute {
  method: 'GET' | 'POST';
  /** Under /console, with :params. */
  path: string;
  /** Who may use it. */
  who: 'team' | 'operator';
  handler(ctx: ConsoleContext): Promise<Html | Redirect> | Html | Redirect;
}

import type { FastifyError } from 'fastify';
import type { App } from '../app-types.ts';
import { databaseUnavailable, isDatabaseUnavailable } from '../db/errors.ts';
import { AppError, type ErrorCode, type ErrorDetail, type ErrorFigures } from '../lib/errors.ts';
import { scanJsonText } from '../lib/json-scan.ts';
import { validationProblem } from './validation.ts';

interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetail[] } & ErrorFigures;
}

/** The most `details` an error lists; a cheap request must not buy a large answer. */
export const MAX_ERROR_DETAILS = 20;

function body(code: ErrorCode, message: string, details?: ErrorDetail[], figures?: ErrorFigures): ErrorBody {
  if (figures) return { error: { code, message, ...figures } };
  if (!details) return { error: { code, message } };
  if (details.length <= MAX_ERROR_DETAILS) return { error: { code, message, details } };
  const more = details.length - MAX_ERROR_DETAILS;
  return {
    error: {
      code,
      message: `${message} (and ${more} more ${more === 1 ? 'problem' : 'problems'} not listed)`,
      details: details.slice(0, MAX_ERROR_DETAILS),
    },
  };
}

/** A byte count as people read it: `5 MiB (5242880 bytes)`. */
function bytes(n: number): string {
  const mib = n / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB (${n} bytes)` : `${n} bytes`;
}

/** What the failing route takes (its own body limit and content types, else the app's), and what was sent. */
interface RouteLimits {
  bodyLimit: number;
  consumes: string[];
  /** The request's Content-Type header, if it had one. */
  contentType: string | undefined;
}

/** Says which content type a route takes, when the body came with another or with none. */
function unsupportedMediaType(route: RouteLimits): AppError {
  const sent = route.contentType?.trim();
  const problem = sent ? `Unsupported Content-Type '${sent.slice(0, 100)}'` : 'Missing Content-Type';
  const expected = route.consumes.join(' or ');
  const json = route.consumes.every((type) => type === 'application/json');
  return new AppError(
    'invalid_request',
    json ? `${problem}: the body must be JSON, sent as ${expected}` : `${problem}: send the body as ${expected}`,
  );
}

/** Turns what Fastify itself raises (parsing, limits, validation) into our codes. */
function fromFastifyError(error: FastifyError, route: RouteLimits): AppError | undefined {
  if (error.validation) {
    const { message, details } = validationProblem(
      error.validation as never,
      error.validationContext,
      MAX_ERROR_DETAILS,
    );
    return new AppError('invalid_request', message, details);
  }
  if (PG_BAD_TEXT.has(String(error.code))) {
    return new AppError(
      'invalid_request',
      'The request contains text that cannot be stored (NUL or invalid characters)',
    );
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', `Request body is larger than the limit of ${bytes(route.bodyLimit)}`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedMediaType(route);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('invalid_request', 'The body is empty but Content-Type says application/json');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('invalid_request', `Malformed JSON body: ${error.message}`);
  }
  if (error instanceof SyntaxError || error.name === 'SyntaxError') {
    return new AppError('invalid_request', `Malformed JSON body: ${error.message}`);
  }
  const status = error.statusCode ?? 500;
  if (status === 413) return new AppError('payload_too_large', error.message);
  if (status === 404) return new AppError('not_found', error.message);
  if (status >= 400 && status < 500) return new AppError('invalid_request', error.message);
  return undefined;
}

// PostgreSQL refuses NUL characters and invalid encodings in text: that is bad input, not a bug.
const PG_BAD_TEXT = new Set(['22021', '22P05']);

/** One error handler and one not-found handler: every error leaves as `{"error": {...}}`. */
export function installErrorHandling(app: App): void {
  // JSON bodies: Fastify's parser (which refuses __proto__ and constructor.prototype keys), after
  // one pass that refuses nesting deeper than JSON_MAX_DEPTH, the NUL character and unpaired
  // surrogates, before anything walks the body.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  const maxDepth = app.deps.config.jsonMaxDepth;
  app.removeContentTypeParser('application/json');
  // Bodies are JSON: Fastify's default text/plain parser would hand a route a string, refused
  // only as "must be object"; without it, a text body is told that JSON is expected.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, text, done) => {
    const problem = scanJsonText(text as string, maxDepth);
    if (problem) {
      done(new AppError('invalid_request', problem), undefined);
      return;
    }
    parseJson(request, text as string, done);
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const schema = request.routeOptions.schema as { consumes?: string[] } | undefined;
    const unavailable = !(error instanceof AppError) && isDatabaseUnavailable(error);
    // A query that timed out or lost its connection: check whether the database still answers.
    if (unavailable) app.deps.databaseHealth.suspect();
    const appError =
      error instanceof AppError
        ? error
        : unavailable
          ? databaseUnavailable()
          : fromFastifyError(error, {
              bodyLimit: request.routeOptions.bodyLimit ?? app.deps.config.jsonBodyLimit,
              consumes: schema?.consumes ?? ['application/json'],
              contentType: request.headers['content-type'],
            });
    if (appError) {
      if (appError.code === 'service_unavailable') request.log.warn({ err: error }, 'database unavailable');
      else if (appError.statusCode >= 500) request.log.error({ err: error }, 'request failed');
      if (appError.headers) reply.headers(appError.headers);
      return reply
        .code(appError.statusCode)
        .send(body(appError.code, appError.message, appError.details, appError.figures));
    }
    // A bug: log everything against the request id, answer nothing about the internals.
    request.log.error({ err: error }, 'unhandled error');
    return reply
      .code(500)
      .send(body('internal_error', `Internal error; quote request id ${request.id} when reporting it`));
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(body('not_found', `No route ${request.method} ${request.url.split('?')[0]}`));
  });
}

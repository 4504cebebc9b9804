import type { FastifyRequest } from 'fastify';
import type { App } from '../app-types.ts';
import {
  contextFromTraceparent,
  recordError,
  type Span,
  SpanKind,
  startSpan,
  tracingEnabled,
  withSpan,
} from '../lib/tracing.ts';

/**
 * A server span for every request, when tracing is on (otherwise nothing is installed): named by
 * its method and route template, continuing a caller's `traceparent`, with the standard http.*
 * attributes. The path itself is not recorded (a media path or a webhook's query holds
 * credentials); the route template is. The span is active in the handler, so what the request
 * does (accepting a generation) is its child.
 */
export function installTracing(app: App): void {
  if (!tracingEnabled()) return;
  const spans = new WeakMap<FastifyRequest, { span: Span; error?: unknown }>();
  app.addHook('onRequest', (request, _reply, done) => {
    const span = startSpan(request.method, {
      kind: SpanKind.SERVER,
      parent: contextFromTraceparent(request.headers.traceparent),
      attributes: {
        'http.request.method': request.method,
        'url.scheme': request.protocol,
        'network.protocol.version': request.raw.httpVersion,
      },
    });
    spans.set(request, { span });
    withSpan(span, done);
  });
  // The body arrives on the socket's own events: the handler runs in the span again.
  app.addHook('preHandler', (request, _reply, done) => {
    const traced = spans.get(request);
    if (traced) withSpan(traced.span, done);
    else done();
  });
  app.addHook('onError', (request, _reply, error, done) => {
    const traced = spans.get(request);
    if (traced) traced.error = error;
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const traced = spans.get(request);
    if (traced) {
      spans.delete(request);
      const route = request.routeOptions.url;
      const { span } = traced;
      if (route) {
        span.setAttribute('http.route', route);
        span.updateName(`${request.method} ${route}`);
      }
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) recordError(span, traced.error ?? new Error(`HTTP ${reply.statusCode}`));
      span.end();
    }
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    const traced = spans.get(request);
    if (traced) {
      spans.delete(request);
      recordError(traced.span, new Error('the client closed the request'));
      traced.span.end();
    }
    done();
  });
}

// The upstream of bench/door.ts, in a process of its own so that it shares no event loop with the
// load generator: a minimal OpenAI-compatible chat server on HOST:PORT. `POST /v1/chat/completions`
// answers by the model's name, `<form>@<caller>`:
//   - form `plain`: at once, one chat.completion (or, with `stream: true`, all its chunks at once);
//   - form `slow`: the answer is made of 20 chunks 25 ms apart, as a model that produces tokens
//     over time: with `stream: true` each chunk is written as it is made (the first at once),
//     without it the whole chat.completion is sent when the last chunk is made.
// The usage is the same for every answer (PROMPT_TOKENS, COMPLETION_TOKENS), so that the charge of
// each request is known; with `stream: true` it comes in a last chunk when
// `stream_options.include_usage` asks for it. `GET /counts` answers how many chat requests each
// model name got (the bench's ledger check), `GET /healthz` answers 200, `GET /v1/models` lists
// nothing. Nothing is logged.
import { randomBytes } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';

export const CHUNKS = 20;
export const CHUNK_INTERVAL_MS = 25;
/** Large enough that a priced model's charge is many credits, so that a wrong charge shows. */
export const PROMPT_TOKENS = 1_000;
export const COMPLETION_TOKENS = 2_000;
/** The text of every answer: CHUNKS words. */
export const ANSWER_WORDS = Array.from({ length: CHUNKS }, (_, i) => `word${i + 1}`);
export const ANSWER = ANSWER_WORDS.join(' ');

const usage = {
  prompt_tokens: PROMPT_TOKENS,
  completion_tokens: COMPLETION_TOKENS,
  total_tokens: PROMPT_TOKENS + COMPLETION_TOKENS,
};

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function chunk(id: string, model: string, created: number, delta: Record<string, unknown>, finish: string | null) {
  return `data: ${JSON.stringify({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  })}\n\n`;
}

function startUpstream(): void {
  const counts = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = req.url?.split('?', 1)[0] ?? '';
    if (req.method === 'GET' && path === '/healthz') return json(res, 200, { status: 'ok' });
    if (req.method === 'GET' && path === '/counts') return json(res, 200, Object.fromEntries(counts));
    if (req.method === 'GET' && path === '/v1/models') return json(res, 200, { object: 'list', data: [] });
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return json(res, 404, {
        error: { message: 'Not found', type: 'invalid_request_error', param: null, code: null },
      });
    }
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      let body: { model?: unknown; stream?: unknown; stream_options?: { include_usage?: unknown } };
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      } catch {
        return json(res, 400, {
          error: { message: 'Invalid JSON', type: 'invalid_request_error', param: null, code: null },
        });
      }
      const model = typeof body.model === 'string' ? body.model : '';
      const form = model.split('@', 1)[0];
      if (form !== 'plain' && form !== 'slow') {
        return json(res, 404, {
          error: { message: `Unknown model '${model}'`, type: 'invalid_request_error', param: 'model', code: null },
        });
      }
      counts.set(model, (counts.get(model) ?? 0) + 1);
      const id = `chatcmpl-${randomBytes(8).toString('hex')}`;
      const created = Math.floor(Date.now() / 1000);
      const interval = form === 'slow' ? CHUNK_INTERVAL_MS : 0;

      if (body.stream === true) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const withUsage = body.stream_options?.include_usage === true;
        let sent = 0;
        const next = () => {
          if (res.destroyed) return;
          const word = ANSWER_WORDS[sent] as string;
          const delta = sent === 0 ? { role: 'assistant', content: word } : { content: ` ${word}` };
          sent += 1;
          const last = sent === CHUNKS;
          res.write(chunk(id, model, created, delta, last ? 'stop' : null));
          if (!last) {
            if (interval > 0) setTimeout(next, interval);
            else next();
            return;
          }
          if (withUsage) {
            res.write(
              `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage })}\n\n`,
            );
          }
          res.end('data: [DONE]\n\n');
        };
        next();
        return;
      }

      const answer = () =>
        json(res, 200, {
          id,
          object: 'chat.completion',
          created,
          model,
          choices: [
            { index: 0, message: { role: 'assistant', content: ANSWER, refusal: null }, finish_reason: 'stop' },
          ],
          usage,
        });
      // The slow form's whole answer exists once its last chunk is made.
      if (interval > 0) setTimeout(answer, interval * (CHUNKS - 1));
      else answer();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(Number(process.env.PORT ?? 8090), process.env.HOST ?? '127.0.0.1');
  const stop = () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (import.meta.main) startUpstream();

import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { OperationName } from '../../catalog/operation-names.ts';
import { cancelGeneration } from '../../engine/cancel.ts';
import { generationEndpointOf, Quote } from '../../engine/define.ts';
import { type HistoryFilter, readHistory, readStatus } from '../../engine/index.ts';
import { GenerationStatusRecord, toStatusRecord } from '../../engine/status.ts';
import { AppError, invalidField, notFound } from '../../lib/errors.ts';
import { PageQueryFields, pageLimitField, pageSchema, pageWindow, toPage } from '../../lib/pagination.ts';
import { errorResponses, Timestamp } from '../../lib/schemas.ts';
import { type GenerationWatch, streamStatus } from './events.ts';

/** Entries per page of the history unless asked otherwise. */
const HISTORY_PAGE_SIZE = 20;

/** The families of operations, as the history filters them (`video` is every video operation). */
const KINDS = ['image', 'video', 'music', 'model3d', 'text', 'speech', 'voice', 'influencer'] as const;

const HistoryEntry = Type.Object(
  {
    ...GenerationStatusRecord.properties,
    operation: Type.String({ examples: [OperationName.videoGenerate], description: 'What made it: kind.operation' }),
    kind: Type.String({ examples: ['video'] }),
    model: Type.Union([Type.String(), Type.Null()]),
    workspace_id: Type.Union([Type.String(), Type.Null()]),
    prompt: Type.Union([Type.String(), Type.Null()], {
      description: 'The first 200 characters of its prompt (or text, script, description)',
    }),
    created_at: Timestamp,
  },
  { $id: 'GenerationHistoryEntry', title: 'GenerationHistoryEntry' },
);

const CanceledGeneration = Type.Object(
  {
    ...GenerationStatusRecord.properties,
    refunded_credits: Type.Integer({
      minimum: 0,
      description: 'What this cancel refunded (work a vendor was already running may not be: see message)',
    }),
    message: Type.String({ description: 'What the cancel did, plainly: what was refunded, and what was not, and why' }),
  },
  { $id: 'CanceledGeneration', title: 'CanceledGeneration' },
);

export default async function generationRoutes(app: App, { watch }: { watch: GenerationWatch }): Promise<void> {
  app.get(
    '/api/v1/generations',
    {
      schema: {
        tags: ['Generations'],
        summary: "The team's generations, newest first",
        description:
          'Cursor pagination: pass `next_cursor` as `cursor` for the next page; it is null on the last one. Each ' +
          'entry is the status record with what made it. Filters combine.',
        querystring: Type.Object({
          ...PageQueryFields,
          limit: pageLimitField(HISTORY_PAGE_SIZE),
          status: Type.Optional(Type.Enum(['queued', 'processing', 'completed', 'failed'])),
          kind: Type.Optional(Type.Enum([...KINDS])),
          operation: Type.Optional(
            Type.String({ minLength: 1, maxLength: 64, examples: [OperationName.videoLipsync] }),
          ),
          model: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
          workspace_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
        }),
        response: { 200: pageSchema(HistoryEntry, 'GenerationHistoryPage'), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const q = request.query;
      const window = pageWindow(q, 'gen', HISTORY_PAGE_SIZE);
      const filter: HistoryFilter = {
        status: q.status,
        kind: q.kind,
        operation: q.operation,
        model: q.model,
        workspaceId: q.workspace_id,
        createdAfter: window.createdAfter,
        createdBefore: window.createdBefore,
        before: window.olderThan,
      };
      // One more than the page: whether there is a next one, without a count.
      const rows = await readHistory(app.deps.pool, request.principal.teamId, filter, window.limit + 1);
      return toPage(rows, window.limit, (row) => ({
        ...toStatusRecord(row),
        operation: row.operation,
        kind: row.operation.split('.')[0] ?? row.operation,
        model: row.model,
        workspace_id: row.workspace_id,
        prompt: row.prompt,
        created_at: row.created_at,
      }));
    },
  );

  app.get(
    '/api/v1/generations/:id/events',
    {
      schema: {
        tags: ['Generations'],
        summary: 'Live status of a generation (Server-Sent Events)',
        description:
          'A `text/event-stream`: an event `status` whose data is the status record, at once and then on every ' +
          'change (item progress included), whichever process made it; the stream ends after the record whose ' +
          'status is completed or failed. A comment keeps an idle stream open (every 15 s by default). ' +
          "Each event's id stands for its record: reconnect with `Last-Event-ID` and you get the record at once if " +
          'it changed meanwhile, or nothing until it changes. Another team’s generation is 404. A team holds at ' +
          'most EVENTS_MAX_STREAMS_PER_TEAM streams open on a server (200 by default), a server at most ' +
          'EVENTS_MAX_STREAMS; past either the answer is 429 `rate_limited` with Retry-After.',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
        headers: Type.Object({ 'last-event-id': Type.Optional(Type.String({ maxLength: 64 })) }),
        response: {
          200: Type.String({ description: 'text/event-stream' }),
          ...errorResponses(401, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const teamId = request.principal.teamId;
      if (!(await readStatus(app.deps.pool, request.params.id, teamId))) {
        throw notFound('Generation', request.params.id);
      }
      await streamStatus(watch, request, reply, request.params.id, teamId);
    },
  );

  app.post(
    '/api/v1/generations/:id/cancel',
    {
      schema: {
        tags: ['Generations'],
        summary: 'Cancel a generation',
        description:
          'Items not yet finished end FAILED with the error `canceled`; their vendor jobs are asked to stop. What ' +
          'is refunded, once: in full for an item no vendor had started (queued, made by the simulator, or still ' +
          "waiting in the vendor's queue: fal `IN_QUEUE`, Replicate `starting`). An item the vendor was already " +
          'running is charged by the vendor (so is a request under way to a synchronous vendor, whose submit is the ' +
          'work, or to a vendor with no cancel): the operator’s `CANCEL_REFUND` decides (default `none`: not refunded, ' +
          'and its error says so). `refunded_credits` and `message` say what this cancel refunded and why. Nothing ' +
          'delivered is refunded: items that finished first keep their result and charge, and so does an item whose ' +
          'result file is already being stored (a URL handed out at creation, such as `model_url`). A generation ' +
          'with nothing left to cancel answers 409 `generation_finished`, saying whether its work completed. ' +
          'Answers the status record.',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: CanceledGeneration, ...errorResponses(401, 404, 409) },
      },
    },
    async (request) => {
      const { deps } = app;
      const id = request.params.id;
      const { operations } = deps.work;
      const outcome = await cancelGeneration(deps.pool, deps.engine, operations, id, request.principal.teamId, {
        providers: deps.providers,
        refundPolicy: deps.config.cancelRefund,
        log: (err) => request.log.warn({ err }, 'a vendor job could not be cancelled'),
      });
      if (outcome.kind === 'not_found') throw notFound('Generation', id);
      if (outcome.kind === 'finished') {
        throw new AppError('generation_finished', `Generation ${id} has already finished`);
      }
      if (outcome.kind === 'completed_first') {
        throw new AppError(
          'generation_finished',
          `Generation ${id} completed before the cancel took effect: its results are delivered (or being stored) ` +
            'and stay charged; nothing was refunded',
        );
      }
      const row = await readStatus(deps.pool, id, request.principal.teamId);
      if (!row) throw notFound('Generation', id);
      return { ...toStatusRecord(row), refunded_credits: outcome.refunded, message: outcome.message };
    },
  );

  app.get(
    '/api/v1/generations/:id/status',
    {
      schema: {
        tags: ['Generations'],
        summary: 'Status of any generation',
        description:
          'Poll every 2-5 s until status is completed or failed. Another team’s generation is 404, like an unknown one.',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: GenerationStatusRecord, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const row = await readStatus(app.deps.pool, request.params.id, request.principal.teamId);
      if (!row) throw notFound('Generation', request.params.id);
      return toStatusRecord(row);
    },
  );

  app.post(
    '/api/v1/quote',
    {
      schema: {
        tags: ['Generations'],
        summary: 'What a generation request would cost, without making it',
        description:
          'Runs the same validation and pricing as the endpoint itself (a generation POST with the header ' +
          '`Prefer: dry-run` does the same) and answers the credits it would charge and your balance; nothing is ' +
          'written or charged. An invalid body answers as the endpoint would (400, 404, ...).',
        body: Type.Object(
          {
            endpoint: Type.String({
              minLength: 1,
              maxLength: 300,
              description: "A generation endpoint's path, e.g. /api/v1/videos/generate",
              examples: ['/api/v1/images/generate'],
            }),
            body: Type.Object({}, { additionalProperties: true, description: 'The request body to price' }),
          },
          {
            examples: [{ endpoint: '/api/v1/images/generate', body: { prompt: 'a lighthouse at dawn, watercolor' } }],
          },
        ),
        response: { 200: Quote, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request, typedReply) => {
      // The endpoint's own answer is passed on as it is, whatever its status.
      const reply = typedReply as unknown as FastifyReply;
      const path = request.body.endpoint.trim().replace(/^POST\s+/i, '');
      if (!generationEndpointOf(path)) {
        throw invalidField('endpoint', `${path} is not a generation endpoint (e.g. /api/v1/images/generate)`);
      }
      const headers: Record<string, string> = { 'content-type': 'application/json', prefer: 'dry-run' };
      if (request.headers.authorization) headers.authorization = request.headers.authorization;
      const answer = await app.inject({
        method: 'POST',
        url: path,
        headers,
        payload: JSON.stringify(request.body.body),
      });
      reply.code(answer.statusCode).type('application/json; charset=utf-8');
      for (const name of ['retry-after', 'preference-applied']) {
        const value = answer.headers[name];
        if (typeof value === 'string') reply.header(name, value);
      }
      return reply.send(answer.body);
    },
  );
}

import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { type Static, type TObject, type TSchema, Type } from 'typebox';
import type { App } from '../app-types.ts';
import type { Queryable } from '../db/pool.ts';
import { DRY_RUN, isDryRun } from '../lib/dry-run.ts';
import { AppError, insufficientCredits } from '../lib/errors.ts';
import { errorResponses } from '../lib/schemas.ts';
import { isRefusalKind } from '../providers/policy.ts';
import { applyLiveRules, refuseUnservedModels } from './availability.ts';
import {
  type Created,
  createGeneration,
  loadAcceptedGeneration,
  queueItemsClaimedAtAccept,
  wasAccepted,
} from './create.ts';
import { runAndWait, runItemsHere } from './in-process.ts';
import { InputCopies, type PlanDeps } from './inputs.ts';
import { routeAtAccept } from './run-item.ts';
import { selectStatus } from './sql/history.ts';
import type { ClaimedItem } from './sql/items.ts';
import type { CreatedGeneration, GenerationPlan, ResponseStream } from './types.ts';
import { checkUserUrls } from './urls.ts';

/** How long the safety-net jobs of the items an asynchronous request runs itself wait before they would run. */
const SYNC_SAFETY_NET_MS = 10 * 60 * 1000;

/** What a dry run (`Prefer: dry-run`) answers: the credits the request would charge, and the balance. */
export const Quote = Type.Object(
  {
    credits: Type.Integer({ description: 'What the request would charge' }),
    balance: Type.Integer({ description: "The team's balance now" }),
    items: Type.Integer({ description: 'The outputs it would make' }),
    estimated_seconds: Type.Number(),
  },
  { $id: 'Quote', title: 'Quote' },
);
export type Quote = Static<typeof Quote>;

/** The outcome of each item of a synchronous request, in order. */
export interface SyncResult {
  items: Array<{ id: string; status: string; url: string | null; result: Record<string, unknown> | null }>;
}

/**
 * A generation endpoint is a declaration: its schemas, how a request becomes a plan (models,
 * items, price) and the response. The engine does the rest for every endpoint alike:
 * authentication (by path), validation, the workspace check, URL checks, the credit charge,
 * rows and jobs in one transaction, idempotency, and the response. A synchronous endpoint
 * (`sync: true`) also runs its items in the request and answers with their results; when every
 * item fails it answers 500 `generation_failed` (the failed items are refunded).
 */
export interface GenerationEndpoint<TBody extends TObject, TResponse extends TSchema> {
  url: string;
  tags: string[];
  summary: string;
  description?: string;
  body: TBody;
  response: TResponse;
  /** Error statuses this endpoint documents besides 400, 401 and 402. */
  errors?: number[];
  /** Runs every item in the request and answers with the results. */
  sync?: boolean;
  /** Item positions an asynchronous endpoint runs in the request before answering (the rest queue). */
  runInRequest?: number[];
  /** Writes the endpoint's own records in the transaction that accepts the generation. */
  onCreated?: (
    db: Queryable,
    created: CreatedGeneration,
    plan: GenerationPlan,
    owner: { teamId: string; workspaceId: string | null },
  ) => Promise<void>;
  /** The request's path parameters, when the URL has some (e.g. the model of a model-named path). */
  params?: TObject;
  /**
   * `deps.inputs` copies the user's input media into our storage (`probeUserMedia` reads and
   * measures those copies); whatever else `urls` names is copied after the plan.
   */
  plan(
    deps: PlanDeps,
    body: Static<TBody>,
    teamId: string,
    params: Record<string, string>,
  ): GenerationPlan | Promise<GenerationPlan>;
  /**
   * A synchronous endpoint that can stream: the stream this accepted request asks for, or undefined
   * to answer at the end as usual. Its sink gets the route's answer as it comes; its `end` is
   * handed the answer (or its error) once the items ended.
   */
  stream?(
    request: FastifyRequest,
    reply: FastifyReply,
    body: Static<TBody>,
    created: CreatedGeneration,
  ): ResponseStream | undefined;
  /**
   * A synchronous endpoint: sees its items' outcomes before `respond` (a caller in this process
   * that asked for them, e.g. the OpenAI door, takes them from there instead of reading them again).
   */
  handOver?(request: FastifyRequest, result: SyncResult): void;
  respond(
    created: CreatedGeneration,
    plan: GenerationPlan,
    body: Static<TBody>,
    result: SyncResult | undefined,
  ): Static<TResponse>;
}

/** The paths of the declared generation endpoints (`:name` a path parameter), each as a pattern. */
const generationPaths = new Map<string, RegExp>();

/** The declared generation endpoint a path is one of (its URL with `:name` parameters), if any. */
export function generationEndpointOf(path: string): string | undefined {
  for (const [url, pattern] of generationPaths) if (pattern.test(path)) return url;
  return undefined;
}

/** Registers one declared generation endpoint on the app. */
export function defineGenerationEndpoint<TBody extends TObject, TResponse extends TSchema>(
  app: App,
  endpoint: GenerationEndpoint<TBody, TResponse>,
): void {
  const escaped = endpoint.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]+/g, '[^/]+');
  generationPaths.set(endpoint.url, new RegExp(`^${escaped}$`));
  const schema: FastifySchema = {
    tags: endpoint.tags,
    summary: endpoint.summary,
    description: endpoint.description,
    body: endpoint.body,
    ...(endpoint.params ? { params: endpoint.params } : {}),
    headers: {
      type: 'object',
      properties: {
        'idempotency-key': {
          type: 'string',
          description: 'Same key and body within 24 h replays the first response without a second charge',
        },
        prefer: {
          type: 'string',
          description:
            '`dry-run`: validate and price the request, answer `{credits, balance, items, estimated_seconds}` ' +
            '(with `Preference-Applied: dry-run`), and write and charge nothing',
        },
      },
    },
    response: {
      200: endpoint.stream
        ? {
            description: 'The answer; with `stream: true`, Server-Sent Events as it comes (see the body’s `stream`)',
            content: {
              'application/json': { schema: endpoint.response },
              'text/event-stream': { schema: Type.String({ description: '`event:` and `data:` lines' }) },
            },
          }
        : endpoint.response,
      // 403: a model the team's rules close to it; 503: a model not available on this service.
      ...errorResponses(400, 401, 402, 403, ...(endpoint.errors ?? []), 409, 422, ...(endpoint.sync ? [500] : []), 503),
    },
  };

  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const { deps } = app;
    const teamId = request.principal.teamId;
    const body = request.body as Static<TBody>;
    const params = (request.params ?? {}) as Record<string, string>;
    const workspaceId = await deps.engine.resolveWorkspace(
      deps.pool,
      teamId,
      (body as { workspace_id?: string }).workspace_id,
    );
    // What the request's items are judged and routed with before they run (no call is made with it).
    const planning = deps.work.context(new AbortController().signal);
    // The request's input media are copied under the generation it will be, and read from there.
    const inputs = new InputCopies(deps);
    let plan: GenerationPlan;
    try {
      plan = await endpoint.plan({ ...deps, inputs }, body, teamId, params);
      // The operator's live rules: a model switched off or not open to the team, the team's multiplier.
      plan = applyLiveRules(deps.engine.live, plan, teamId);
      // A model no configured vendor serves, that the simulator may not stand in for, is refused
      // here: before a quote, a charge or a row.
      refuseUnservedModels(planning, deps.work.operations, plan, teamId);
      await checkUserUrls(deps, plan);
      if (isDryRun(request)) {
        // Validated and priced as the request would be; nothing is written or charged.
        const quote: Quote = {
          credits: plan.items.reduce((sum, item) => sum + item.price, 0),
          balance: await deps.engine.readBalance(deps.pool, teamId),
          items: plan.items.length,
          estimated_seconds: plan.estimatedSeconds,
        };
        await inputs.discard();
        reply.header('preference-applied', DRY_RUN).type('application/json; charset=utf-8');
        return reply.send(JSON.stringify(quote));
      }
      // Copying the inputs may take long (LoRA weights): a team that cannot pay is refused first.
      // The transaction that accepts the request checks the balance again (alone, when there is
      // nothing to copy: the same 402). A retry finishing the generation its first attempt paid
      // for is not refused for what that attempt charged.
      const price = plan.items.reduce((sum, item) => sum + item.price, 0);
      if (price > 0 && (plan.urls ?? []).length > 0 && !request.idempotency?.unfinishedGenerationId) {
        const balance = await deps.engine.readBalance(deps.pool, teamId);
        if (balance < price) throw insufficientCredits(price, balance);
      }
      plan = await inputs.adopt(plan);
    } catch (err) {
      await inputs.discard();
      throw err;
    }

    const owner = { teamId, workspaceId };
    // A synchronous request runs its items itself, with no job; an asynchronous one may run some of
    // them first, their jobs held back as a safety net.
    const inRequest = new Set(endpoint.sync ? [] : (endpoint.runInRequest ?? []));
    const safetyNet = new Date(Date.now() + SYNC_SAFETY_NET_MS);
    const jobsRunAt = (position: number) => (inRequest.has(position) ? safetyNet : null);
    const { leaseMs, teamMaxConcurrentItems } = deps.config.items;

    // An asynchronous request's items are run at once by this process's worker while it has room for
    // all of them (claimed at accept: no job to pick up); else, or when some run in the request,
    // they are queued as jobs.
    const held = !endpoint.sync && inRequest.size === 0 ? deps.work.localRuns?.hold(plan.items.length) : undefined;
    // The route of an item claimed at accept is chosen as its run would choose it.
    const route = (item: ClaimedItem) => routeAtAccept(planning, deps.work.operations, item);

    const claim = request.idempotency;
    // Accepts the generation; `then` runs last in its transaction (without it or an onCreated, the
    // acceptance is one call). Not accepted: its input copies go. An error that is not a refusal
    // (the connection lost, or timed out, with COMMIT under way) may come from a generation that
    // was accepted and charged: its copies stay unless it is certain that it was not (a copy left
    // behind costs bytes; a copy lost fails a paid generation).
    const accept = (then?: (client: Queryable, created: CreatedGeneration) => Promise<void>) =>
      createGeneration(deps.pool, deps.storage, deps.engine, {
        id: inputs.generationId,
        inputKeys: inputs.keys,
        teamId,
        workspaceId,
        plan,
        retentionDays: deps.work.operations[plan.operation]?.keepsResults ? 0 : deps.config.mediaRetentionDays,
        jobsRunAt,
        claimAtAccept:
          endpoint.sync || held
            ? { by: endpoint.sync ? 'request' : 'worker', leaseMs, defaultCap: teamMaxConcurrentItems, route }
            : undefined,
        finish:
          endpoint.onCreated || then
            ? async (client, created) => {
                await endpoint.onCreated?.(client, created, plan, owner);
                await then?.(client, created);
              }
            : undefined,
      }).catch(async (err: unknown) => {
        const refused =
          err instanceof AppError || !(await wasAccepted(deps.pool, inputs.generationId, teamId).catch(() => true));
        if (refused) await inputs.discard();
        // Accepted after all, its items claimed for this process's worker, which was never told:
        // a job each runs them (should even that fail, the sweep takes them up once their lease lapses).
        else if (held) await queueItemsClaimedAtAccept(deps.pool, inputs.generationId).catch(() => undefined);
        throw err;
      });
    if (!endpoint.sync) {
      let response: Static<TResponse> | undefined;
      let created: Created;
      try {
        created = await accept(
          claim
            ? async (client, created) => {
                response = endpoint.respond(created, plan, body, undefined);
                await deps.engine.completeIdempotencyKey(client, claim, 200, JSON.stringify(response));
              }
            : undefined,
        );
        if (held) {
          for (const [position, claimed] of (created.claims ?? []).entries()) {
            if (claimed?.kind === 'claimed') held.run(claimed.item, created.sendTo?.[position]);
          }
        }
      } finally {
        held?.release();
      }
      if (inRequest.size > 0) {
        const itemIds = [...inRequest].map((position) => created.itemIds[position] as string);
        await runItemsHere(deps.work, itemIds, SYNC_SAFETY_NET_MS / 2);
      }
      return response ?? endpoint.respond(created, plan, body, undefined);
    }

    // A retry that took over the Idempotency-Key of a request whose process died finishes the
    // generation that request created (and paid for) instead of creating another.
    const unfinished = claim?.unfinishedGenerationId
      ? await loadAcceptedGeneration(deps.pool, deps.storage, claim.unfinishedGenerationId, teamId)
      : undefined;
    if (unfinished) await inputs.discard();
    const created: Created =
      unfinished ??
      (await accept(
        claim ? (client, created) => deps.engine.recordClaimedGeneration(client, claim, created.id) : undefined,
      ));
    // A streaming request gets the route's answer as it comes; its stream sends the end (below).
    const stream = endpoint.stream?.(request, reply, body, created);
    if (stream) streams.set(request, stream);
    // Accepted here: claimed in the same transaction. A retry finishing a generation claims its items now.
    const claims = created.claims;
    const items = await runAndWait(
      deps.work,
      created.itemIds.map((id, position) => ({ id, claim: claims?.[position], sendTo: created.sendTo?.[position] })),
      deps.config.syncRequestTimeoutS * 1000,
      `Did not finish within the ${deps.config.syncRequestTimeoutS} s a synchronous request waits (SYNC_REQUEST_TIMEOUT_S)`,
      stream?.sink,
    );
    if (items.every((i) => i.status !== 'COMPLETED')) {
      // What came back: all of it, unless a cancel kept the charge of work the vendor had started.
      const refunded = (await selectStatus(deps.pool, created.id, teamId))?.credits_refunded ?? 0;
      const refund =
        refunded >= created.creditsCharged
          ? `its ${created.creditsCharged} credits were refunded`
          : `${refunded} of its ${created.creditsCharged} credits were refunded`;
      // A vendor that refused the input: the request was at fault, so a 400 with the vendor's reason.
      const refused = items.find((i) => isRefusalKind(i.errorKind));
      if (refused) {
        throw new AppError(
          'invalid_request',
          `The provider refused the input (generation ${created.id}, ${refund}): ${refused.error ?? 'no reason given'}`,
        );
      }
      throw new AppError(
        'generation_failed',
        `Generation ${created.id} failed and ${refund}: ${items[0]?.error ?? 'unknown error'}`,
      );
    }
    endpoint.handOver?.(request, { items });
    return endpoint.respond(created, plan, body, { items });
  };

  // The declaration's generic types are checked above; Fastify's own inference cannot follow them.
  const streams = new WeakMap<FastifyRequest, ResponseStream>();
  const answer = async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const answered = handler(request, reply);
    await answered.catch(() => undefined);
    const stream = streams.get(request);
    return stream ? stream.end(answered) : answered;
  };
  (app as unknown as FastifyInstance).route({ method: 'POST', url: endpoint.url, schema, handler: answer });
}

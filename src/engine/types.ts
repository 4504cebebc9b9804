import type { FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { TSchema } from 'typebox';
import type { MediaCatalog } from '../catalog/media-models.ts';
import type { ModelCatalog, ModelRoute } from '../catalog/models.ts';
import type { OperationName } from '../catalog/operation-names.ts';
import type { ItemPolicy } from '../config.ts';
import type { Queryable } from '../db/pool.ts';
import type { PickedRoute, ProviderRegistry } from '../providers/registry.ts';
import type {
  Provider,
  ProviderFile,
  ProviderOutput,
  StreamSink,
  VendorRequest,
  WorkItem,
} from '../providers/types.ts';
import type { MediaSigner } from '../storage/signed-urls.ts';
import type { Storage } from '../storage/types.ts';
import type { LocalRuns } from './local-runs.ts';
import type { RoomWaits } from './room-waits.ts';

/** A webhook to a team's URL about one of its generations. */
export interface EngineWebhook {
  teamId: string;
  generationId: string;
  url: string;
  eventType: string;
  data: unknown;
}

/**
 * What the engine asks of the features above it (the balance, the team's webhooks), given by the
 * composition root: the engine imports none of the modules that build on it. (Its charges and
 * refunds are written by its own database calls through apply_credit_change, the statement the
 * credits module writes every credit change with: migration 0036.)
 */
export interface EngineServices {
  /** The team's credit balance. */
  readBalance(db: Queryable, teamId: string): Promise<number>;
  /** Items a team runs at once unless its own cap says otherwise. */
  teamMaxConcurrentItems: number;
  /** Records a webhook delivery in the caller's transaction; its own jobs deliver it. */
  enqueueWebhook(db: Queryable, webhook: EngineWebhook): Promise<void>;
  /** The job task that delivers webhooks (the recovery sweep requeues stranded deliveries). */
  webhookTask: string;
  /** Queues the next attempt of a delivery. */
  queueDeliveryAttempt(db: Queryable, deliveryId: string): Promise<void>;
  /** The team's workspace a request names (404/403 when it is not the team's), or null. */
  resolveWorkspace(db: Queryable, teamId: string, workspaceId: string | null | undefined): Promise<string | null>;
  /** Stores the answer of a request under its Idempotency-Key claim, in the caller's transaction. */
  completeIdempotencyKey(db: Queryable, claim: IdempotencyClaimOf, status: number, body: string): Promise<void>;
  /** Ties the generation a synchronous request created to its claim (a retry finishes that one). */
  recordClaimedGeneration(db: Queryable, claim: IdempotencyClaimOf, generationId: string): Promise<void>;
  /** What the engine counts for the process's metrics (after the change it counts is written). */
  metrics: EngineMetrics;
  /** The operator's live changes the engine applies when it accepts a request. */
  live: LiveRules;
}

/**
 * The counts the engine reports as things happen (the metrics plugin turns them into Prometheus
 * series). Labels come from the catalog and the code, never from a request.
 */
export interface EngineMetrics {
  /** A generation was accepted (its transaction committed). */
  generationAccepted(g: { operation: string; model: string | null }): void;
  /** A generation reached its final status (completed or failed) with its last item. */
  generationFinished(g: { operation: string; model: string | null; status: 'completed' | 'failed' }): void;
  /** An item reached its outcome: recorded once, whichever process recorded it. */
  itemFinished(i: {
    operation: string;
    model: string | null;
    /** The vendor that served it or failed it last; null: the simulator (or nothing) did. */
    provider: string | null;
    ok: boolean;
    /** The failure's kind (a WorkError kind, canceled, timeout), when one is known. */
    errorKind?: string | null;
    /** When the generation was accepted; undefined when not known. */
    acceptedAt: Date | undefined;
  }): void;
  /** One vendor attempt (a submit and the job it started) ended. */
  vendorAttemptEnded(a: {
    provider: string;
    endpoint: string;
    outcome: 'completed' | 'failed' | 'submit_failed' | 'unknown';
    errorKind?: string | null;
  }): void;
  /**
   * A vendor credential's cap (`max_in_flight` or `rpm`) was full at a submit: another credential
   * of the vendor took the item (`skipped`), or none had room and the item waits (`deferred`).
   */
  credentialCapped(c: { provider: string; cap: 'max_in_flight' | 'rpm'; outcome: 'skipped' | 'deferred' }): void;
  /**
   * A synchronous request whose item waits for room in its team's cap tried to claim it (its first
   * try, or once more after its item was woken).
   */
  roomWaitClaimTried(): void;
  /**
   * One attempt to deliver a webhook the engine queued ended (the webhooks module reports it):
   * delivered, failed with another attempt scheduled, or failed for good. statusCode null: no HTTP
   * answer (a network error, a timeout, a refused URL).
   */
  webhookAttempted(a: { outcome: 'delivered' | 'failed_attempt' | 'gave_up'; statusCode: number | null }): void;
}

/**
 * What runs work in this process (a worker's jobs, the items a request runs itself): every
 * operation by name, and the context items run with. The composition root builds it.
 */
export interface Work {
  operations: Record<string, Operation>;
  /** The context items run with; `signal` ends their work. */
  context(signal: AbortSignal): ExecutionContext;
  /** Where synchronous requests whose items found no room in their team's cap wait for it. */
  rooms: RoomWaits;
  /**
   * This process's worker, running the items of asynchronous requests it accepted claimed (set
   * while a worker runs in the process that serves the API).
   */
  localRuns?: LocalRuns;
}

/** The Idempotency-Key claim a request holds (as the idempotency plugin puts it on the request). */
type IdempotencyClaimOf = NonNullable<FastifyRequest['idempotency']>;

/** What is known of a result once it is in our storage (its bytes are there, not here). */
export type StoredFile = Omit<ProviderFile, 'data'>;

/** One output a request asks for (batch N → N items). */
export interface PlannedItem {
  type: 'image' | 'video' | 'audio' | 'model' | 'text';
  model?: string | null;
  /** Credits this item costs; refunded if it fails. */
  price: number;
  /** What the worker needs for this item beyond the generation's input. */
  input?: Record<string, unknown>;
}

/** What an endpoint declaration turns a validated request into. */
export interface GenerationPlan {
  operation: OperationName;
  model: string | null;
  /** Normalised request the worker reads (no secrets). */
  input: Record<string, unknown>;
  items: PlannedItem[];
  estimatedSeconds: number;
  webhookUrl?: string | null;
  /** User URLs the work will fetch: checked (scheme, public address) before anything is charged. */
  urls?: Array<{ field: string; url: string }>;
}

export interface CreatedGeneration {
  id: string;
  status: 'queued';
  itemIds: string[];
  /** Where each item's result will be stored, by extension: the URLs are known before the work runs. */
  resultUrl(position: number, extension: string): string;
  creditsCharged: number;
  estimatedSeconds: number;
  createdAt: Date;
}

/**
 * The stream of a synchronous request that asked for one: `sink` gets the route's answer as it
 * comes, `end` the endpoint's answer (or its error) once the items ended, and answers what the
 * handler answers (the reply, when the stream already sent it).
 */
export interface ResponseStream {
  sink: StreamSink;
  end(answer: Promise<unknown>): Promise<unknown>;
}

/** What an operation's executor gets on the worker. */
export interface ExecutionContext {
  pool: pg.Pool;
  /** The ledger and the webhooks, as the engine is given them. */
  services: EngineServices;
  storage: Storage;
  /** Signs the URLs of the request's input copies that a vendor is given. */
  mediaSigner: MediaSigner;
  catalog: ModelCatalog;
  media: MediaCatalog;
  /** Fetches a user media URL under the outbound policy (or reads our own storage directly). */
  fetchMedia(url: string): Promise<Buffer>;
  /**
   * The URL of our own media route for a key, whatever the storage: where a text result, kept in
   * its item's record rather than stored as a file, is served (see text-results.ts).
   */
  recordUrl(key: string): string;
  signal: AbortSignal;
  /** Where the route streams its answer as it comes (a streamed synchronous text request), if anyone waits for it. */
  stream?: StreamSink;
  /**
   * The outcomes this context records, by item id, as they are recorded (a synchronous request
   * answers from them instead of reading its items again).
   */
  recorded?: Map<string, RecordedOutcome>;
  /** Retries, leases and interruptions of the items this process runs. */
  itemPolicy: ItemPolicy;
  /** The configured vendors and the route each item takes. */
  providers: ProviderRegistry;
  /**
   * The simulator, as a provider whose endpoints are the operations: the route of an item no
   * configured vendor serves, where the operator lets it stand in (its routes' health is not
   * tracked, and its attempts are not counted as a vendor's).
   */
  simulator: Provider;
  /**
   * Whether the simulator may stand in for the model `model` of the model list's kind `kind` when
   * no configured vendor serves it (PROVIDERS, SIMULATOR_MODELS, the local start).
   */
  simulatorMayServe(kind: string, model: string | null): boolean;
  /** How often vendor jobs are polled: at least `minMs` apart, at most `maxMs`. */
  poll: { minMs: number; maxMs: number };
  /** The circuit breaker: failures in a row that cool a route, and for how long. */
  routeCooldown: { after: number; seconds: number };
  /** The window a credential's `rpm` is counted over, and when an item none has room for is tried again. */
  credentialCaps: { rpmWindowS: number; retryMs: number };
  /** Preset voice id → the speech vendor's voice id (ELEVENLABS_VOICE_MAP); an unmapped preset is simulated. */
  vendorVoiceIds: Readonly<Record<string, string>>;
  /**
   * What the operator pays (US dollars) for one completed job of a route whose vendor reports no
   * cost (fal, ComfyUI, Suno), by `'<provider> <endpoint>'` (VENDOR_UNIT_PRICES_USD).
   */
  vendorUnitPricesUsd: Readonly<Record<string, number>>;
  /**
   * Where a vendor posts the webhooks of one item's job, when it can reach us (undefined: poll
   * only): the URL names the item and carries a credential bound to it (see itemWebhookCredential).
   */
  vendorWebhookUrl(providerId: string, itemId: string): string | undefined;
  /** The origins a provider's result URLs may come from without being public. */
  trustedOriginsOf(providerId: string): string[];
  allowPrivateUrls: boolean;
}

/** An item's outcome as it was recorded. */
export interface RecordedOutcome {
  status: 'COMPLETED' | 'FAILED';
  url: string | null;
  /** The item's result as stored (JSON). */
  result: Record<string, unknown> | null;
  error: string | null;
  /** The WorkError kind of a failure, when one is known. */
  errorKind: string | null;
}

/** A file the service made itself (an operation's `local` step), with what to add to the item's result. */
export type LocalFile = ProviderFile;

/** What the caller of runItem allows: a worker's job may be retried, a synchronous request's not. */
export interface RunOptions {
  mayRetry: boolean;
  /**
   * The deadline (epoch ms) of the synchronous request waiting for the item: a vendor's Retry-After
   * is waited for only when the next try starts before it, and the item's next job carries it.
   */
  waitUntil?: number;
  /**
   * A synchronous request runs the item itself, in its own process: what a worker's run would
   * queue as a job (the next try, a failover, a poll of the vendor's job) is answered as the
   * request's next step instead, and the vendor is asked for no webhook.
   */
  here?: boolean;
  /**
   * The route the item was recorded as on its way to when it was accepted, with its attempt
   * opened (routeAtAccept): it is sent there at once. For the first run of an item claimed at
   * accept only.
   */
  sendTo?: RouteReserved;
}

/** A route an item's submit was recorded for, and the attempt opened for it. */
export interface RouteReserved {
  picked: PickedRoute;
  attemptId: string;
}

/** What a request running an item itself does next, and when (epoch ms): run it again, or poll its vendor job. */
export interface NextStep {
  kind: 'again' | 'poll';
  at: number;
}

/**
 * One item as an operation (and the simulator) sees it: `request` is its generation's input, as
 * the operation's input schema describes it (`TInput`) once the item's job has checked it.
 */
export interface ExecutableItem<TInput = WorkItem['request']> extends Omit<WorkItem, 'request'> {
  request: TInput;
  /**
   * The routes of its model when it was accepted: the operator's list, or `catalog` for the
   * catalog's. Absent for one not accepted yet (or accepted before they were recorded): the routes
   * in force now.
   */
  acceptedRoutes?: AcceptedRoutes | null;
}

/** The routes an item was accepted with: the operator's list for its model, or `catalog` (none was set). */
export type AcceptedRoutes = readonly ModelRoute[] | 'catalog';

/** An item that has just completed, as its operation's completion hook sees it. */
export interface CompletedItem<TInput = WorkItem['request']> {
  item: ExecutableItem<TInput>;
  workspaceId: string | null;
  url: string;
  file: StoredFile;
}

/** What an item asks of a vendor: the routes that may serve it and the request in our own terms. */
export interface VendorWork {
  /**
   * In order of preference (the catalog model's routes); the operator's list for the model takes
   * their place (`vendorWork`).
   */
  routes: readonly ModelRoute[];
  /**
   * Only the routes of this vendor serve the item (a provider family's `settings.provider`), of
   * whichever list is in force.
   */
  provider?: string;
  request: VendorRequest;
  /** The media type the result must be. */
  expects: 'image' | 'video' | 'audio' | 'model' | 'text';
}

/**
 * What the workers know of an operation: the request its plans store, how to run an item, and what
 * a completion adds. Its steps read the item's request as `TInput`, the type of its `input` schema
 * (build one with `operationOf`): the worker checks the stored request against that schema when
 * the item's job starts (`requestMismatch`) and fails the item when it does not match.
 *
 * The steps are methods, so that one registry (`Record<string, Operation>`) holds operations of
 * different inputs; the check at the start is what lets the engine hand them any item's request.
 */
export interface Operation<TInput = WorkItem['request']> {
  /** The schema of the request its plans store (the module's inputs.ts). */
  input: TSchema;
  /**
   * Describes an item for a vendor; when it answers undefined (a variant no vendor serves) or no
   * configured route serves it, the item is the service's own work (`local`), or the simulator
   * stands in for the vendor where the operator lets it.
   */
  vendor?(ctx: ExecutionContext, item: ExecutableItem<TInput>): VendorWork | undefined;
  /**
   * The service's own making of an item no configured vendor serves (an influencer's reference
   * sheet, a voice's profile and preview, speech in a voice of ours): its file, stored as it is
   * (no vendor hook runs on it). Such an item is never refused for want of a vendor, and the
   * simulator never stands in for it.
   */
  local?(ctx: ExecutionContext, item: ExecutableItem<TInput>, work: VendorWork | undefined): Promise<LocalFile>;
  /**
   * Whether an item no configured vendor serves is the service's own work (`local`) rather than a
   * vendor's model the simulator would stand in for; without it, every such item is (when `local`
   * is given).
   */
  ownWork?(item: ExecutableItem<TInput>, work: VendorWork | undefined): boolean;
  /**
   * Makes what the vendor needs that the service makes itself (the speech of a script), just
   * before the item is submitted: the request as it is to be sent. Runs again if the submit is.
   */
  prepare?(ctx: ExecutionContext, item: ExecutableItem<TInput>, work: VendorWork): Promise<VendorWork>;
  /**
   * Makes a vendor's file what the item asked for before it is stored (speech in a format, at a
   * loudness or tempo the vendor could not give): its bytes, and what to add to the item's result.
   * The file is held in memory for it (at most CONVERTED_MAX_BYTES), so only small results have one.
   */
  convertFile?(
    ctx: ExecutionContext,
    item: ExecutableItem<TInput>,
    file: { data: Buffer; contentType: string },
    vendorMetadata: Record<string, unknown>,
  ): Promise<{ data: Buffer; contentType: string; metadata: Record<string, unknown> }>;
  /**
   * Finishes a vendor's file once it is in our storage under `key` (an influencer video gets its
   * dialog spoken in the voice), rewriting it there; answers what it adds to the item's result.
   */
  finishFile?(ctx: ExecutionContext, item: ExecutableItem<TInput>, key: string): Promise<Record<string, unknown>>;
  /**
   * What a vendor's answer comes to, for operations charged an upper bound up front (text is
   * charged for max_tokens): the credits the work really cost (never more than the item's price is
   * charged) and what to add to the item's result.
   */
  settle?(
    item: ExecutableItem<TInput>,
    output: ProviderOutput,
    charged: number,
  ): { actualCredits: number; metadata: Record<string, unknown> };
  /**
   * The answer that accepts it hands out its items' result URLs (a 3D model's `model_url`, an
   * influencer video's frames): a file the client may fetch before its item completes. Each result
   * is then marked as being stored, and committed, before it is written (markStoringResult), so that
   * a cancel can no longer refund it. Without it, a result's URL reaches the client only with the
   * completion: a cancel meanwhile refunds the item and the file written for it is deleted.
   */
  resultUrlsAtAccept?: boolean;
  /**
   * Its results are records other work reads later (an influencer's face and references): they are
   * kept whatever MEDIA_RETENTION_DAYS says.
   */
  keepsResults?: boolean;
  /** Runs inside the transaction that records the completion (e.g. to create a music track). */
  onCompleted?(db: Queryable, done: CompletedItem<TInput>): Promise<void>;
  /** Runs inside the transaction that records the failure (the refund is already written). */
  onFailed?(db: Queryable, item: ExecutableItem<TInput>, error: string): Promise<void>;
}

/** A team's model rules and price multiplier, as the operator set them (live, without a restart). */
export interface TeamModelRules {
  /** Every price the team is charged and quoted is multiplied by it (rounded up to whole credits). */
  priceMultiplier: number;
  /** `kind:model` entries; when not empty, only these may be used. */
  allowedModels: readonly string[];
  /** `kind:model` entries the team may not use. */
  deniedModels: readonly string[];
}

/** What the operator changed live that the engine applies at accept: availability and team rules. */
export interface LiveRules {
  /** Whether the operator took the model (its model-list kind and id) off the service. */
  isSwitchedOff(kind: string, model: string): boolean;
  /** The team's rules (the defaults when none were set). */
  teamRules(teamId: string): TeamModelRules;
  /** The routes the operator set for the model (its model-list kind and id), in place of the catalog's. */
  routesOf(kind: string, model: string): readonly ModelRoute[] | undefined;
}

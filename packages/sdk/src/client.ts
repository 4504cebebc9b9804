// The SDK's facade: `new GenMedia({ apiKey, baseUrl })`, one namespace per area of the API, every
// call typed from the service's OpenAPI document (schema.d.ts) and sent through openapi-fetch over
// the retrying transport. Each call is declared by its method and path; the types follow from them.
import createClient, { type Client } from 'openapi-fetch';
import { errorFromResponse, FailedGenerationError, GenMediaError } from './errors.js';
import type { components, paths } from './schema.js';
import { streamChat } from './text-stream.js';
import { createTransport } from './transport.js';
import { type GenerationStatus, type WaitOptions, waitForGeneration } from './wait.js';
import { verifyWebhook } from './webhooks.js';

export type Schemas = components['schemas'];

type Method = 'get' | 'post' | 'patch' | 'delete';
/** The paths that take `method`. */
type PathsWith<M extends Method> = {
  [P in keyof paths]: paths[P][M] extends undefined ? never : P;
}[keyof paths];
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type Json<T> = T extends { content: { 'application/json': infer J } } ? J : never;

/** The JSON body an endpoint takes. */
export type RequestBody<P extends keyof paths, M extends Method = 'post'> =
  Operation<P, M> extends { requestBody: infer B } ? Json<B> : undefined;
/** The query parameters an endpoint takes. */
export type QueryOf<P extends keyof paths, M extends Method = 'get'> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** What an endpoint answers on success. */
export type ResponseOf<P extends keyof paths, M extends Method = 'post'> =
  Operation<P, M> extends { responses: infer R }
    ? R extends { 200: infer S }
      ? Json<S>
      : R extends { 201: infer S }
        ? Json<S>
        : R extends { 204: unknown }
          ? undefined
          : unknown
    : never;

/** Options of one call. */
export interface RequestOptions {
  /** Sent as Idempotency-Key (POST); one is made for every POST otherwise, and kept across its retries. */
  idempotencyKey?: string;
  /** Cancels the call. */
  signal?: AbortSignal;
  /** Extra headers. */
  headers?: Record<string, string>;
}

export interface GenMediaOptions {
  /** A team API key (`gms_...`); default: the GENMEDIA_API_KEY environment variable. */
  apiKey?: string;
  /** The service's base URL; default: GENMEDIA_BASE_URL, else http://localhost:8080. */
  baseUrl?: string;
  /** Retries of a call after its first attempt (network errors, 408, 409, 429, 5xx); default 3. */
  maxRetries?: number;
  /** Timeout of each attempt in milliseconds; default 600000 (synchronous endpoints may take minutes). */
  timeout?: number;
  /** Longest wait between retries in milliseconds (Retry-After is honoured up to it); default 60000. */
  maxRetryDelay?: number;
  /** The fetch to use; default globalThis.fetch. */
  fetch?: typeof fetch;
}

/** What `run` gives back: the accepted answer, the final status record and its result URLs. */
export interface RunResult<R> {
  accepted: R;
  generation: GenerationStatus;
  urls: string[];
}

type RunOptions = WaitOptions & RequestOptions;

// The environment where the runtime has one (Node, Deno, Bun); browsers have none.
function environment(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.[name] || undefined;
}

/** The SDK version (sent in User-Agent). */
export const VERSION = '0.1.0';

type LooseRequest = (
  method: string,
  path: string,
  init: {
    params?: { path?: Record<string, string>; query?: object };
    body?: unknown;
    headers?: Record<string, string>;
    signal?: AbortSignal;
    parseAs?: 'json' | 'text' | 'stream';
  },
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/** A client of the Generative Media Service. */
export class GenMedia {
  readonly baseUrl: string;
  private readonly http: Client<paths>;
  private readonly transport: (request: Request) => Promise<Response>;

  constructor(options: GenMediaOptions = {}) {
    const apiKey = options.apiKey ?? environment('GENMEDIA_API_KEY');
    if (!apiKey) {
      throw new GenMediaError('An API key is needed: pass { apiKey } or set GENMEDIA_API_KEY');
    }
    this.baseUrl = (options.baseUrl ?? environment('GENMEDIA_BASE_URL') ?? 'http://localhost:8080').replace(/\/+$/, '');
    this.transport = createTransport({
      apiKey,
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      maxRetries: options.maxRetries ?? 3,
      timeoutMs: options.timeout ?? 600_000,
      maxRetryDelayMs: options.maxRetryDelay ?? 60_000,
      userAgent: `genmedia-sdk/${VERSION}`,
    });
    this.http = createClient<paths>({ baseUrl: this.baseUrl, fetch: this.transport });
  }

  /** Sends one call; answers its body or throws the error class of its code. */
  private async send<T>(
    method: Method,
    path: string,
    init: { path?: Record<string, string>; query?: object; body?: unknown; parseAs?: 'json' | 'text' },
    options: RequestOptions = {},
  ): Promise<T> {
    const headers = { ...options.headers };
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    const request = this.http.request as unknown as LooseRequest;
    const { data, error, response } = await request(method.toUpperCase(), path, {
      params: { path: init.path, query: init.query },
      body: init.body,
      headers,
      signal: options.signal,
      parseAs: init.parseAs,
    });
    if (!response.ok) throw errorFromResponse(response, error);
    return data as T;
  }

  // The shapes of calls: a POST with a body, a GET with a query, and either on a path with one id.
  private post<P extends PathsWith<'post'>>(path: P) {
    return (body: RequestBody<P>, options?: RequestOptions): Promise<ResponseOf<P>> =>
      this.send('post', path, { body }, options);
  }
  private get<P extends PathsWith<'get'>>(path: P) {
    return (query?: QueryOf<P>, options?: RequestOptions): Promise<ResponseOf<P, 'get'>> =>
      this.send('get', path, { query }, options);
  }
  private getOne<P extends PathsWith<'get'>>(path: P) {
    return (id: string, query?: QueryOf<P>, options?: RequestOptions): Promise<ResponseOf<P, 'get'>> =>
      this.send('get', path, { path: idParam(path, id), query }, options);
  }
  private postOne<P extends PathsWith<'post'>>(path: P) {
    return (id: string, options?: RequestOptions): Promise<ResponseOf<P>> =>
      this.send('post', path, { path: idParam(path, id) }, options);
  }

  readonly images = {
    /** Text to image (async): answers the generation id; see `run` and `generations.wait`. */
    generate: this.post('/api/v1/images/generate'),
    /** Portraits of a described face (async). */
    generateFace: this.post('/api/v1/images/generate-face'),
    /** Edits images with a prompt (async). */
    edit: this.post('/api/v1/images/edit'),
  };

  readonly videos = {
    generate: this.post('/api/v1/videos/generate'),
    lipsync: this.post('/api/v1/videos/lipsync'),
    motionControl: this.post('/api/v1/videos/motion-control'),
    referenceToVideo: this.post('/api/v1/videos/reference-to-video'),
    talkingHead: this.post('/api/v1/videos/talking-head'),
    upscale: this.post('/api/v1/videos/upscale'),
    /** @deprecated use `upscale` with model `seedvr2` */
    upscaleSeedvr2: this.post('/api/v1/videos/upscale/seedvr2'),
    /** @deprecated use `upscale` with a Topaz model */
    upscaleTopaz: this.post('/api/v1/videos/upscale/topaz'),
    /** The LoRA video endpoint (synchronous: answers the video). */
    wan22Lora: this.post('/api/v1/videos/wan-2.2-lora'),
  };

  readonly music = {
    generate: this.post('/api/v1/music/generate'),
    list: this.get('/api/v1/music'),
    get: this.getOne('/api/v1/music/{id}'),
  };

  readonly voices = {
    list: this.get('/api/v1/voices'),
    get: this.getOne('/api/v1/voices/{id}'),
    /** Clones or designs a voice (v1, synchronous). */
    generate: this.post('/api/v1/voices/generate'),
    /** Clones a voice from an audio URL (v2, synchronous). */
    clone: this.post('/api/v2/voice-clone'),
    /** Designs a voice from a description (v2, synchronous). */
    design: this.post('/api/v2/voice-design'),
  };

  readonly speech = {
    /** Text to speech (synchronous: answers the audio URL). */
    create: this.post('/api/v2/text-to-speech'),
    /** The preset voices. */
    voices: this.get('/api/v2/voices'),
  };

  readonly models3d = {
    generate: this.post('/api/v1/models-3d/generate'),
  };

  readonly text = {
    /** Text generation (synchronous: answers the text and its usage). */
    generate: this.post('/api/v1/text/generate'),
    /**
     * The same, as a stream of text pieces (through the OpenAI-compatible door's streaming chat
     * completions); charged like `generate`.
     */
    stream: (
      body: Omit<RequestBody<'/api/v1/text/generate'>, 'workspace_id'>,
      options?: RequestOptions,
    ): AsyncIterable<string> => this.streamText(body, options),
  };

  readonly influencers = {
    list: this.get('/api/v1/influencers'),
    create: this.post('/api/v1/influencers/create'),
    generate: this.post('/api/v1/influencers/generate'),
    video: this.post('/api/v1/influencers/video'),
  };

  readonly generations = {
    /** The team's generations, newest first (cursor pages). */
    list: this.get('/api/v1/generations'),
    /** The status record. */
    status: this.getOne('/api/v1/generations/{id}/status'),
    /** Cancels the unfinished items (refunded); a finished generation is GenerationFinishedError. */
    cancel: this.postOne('/api/v1/generations/{id}/cancel'),
    /** What a request would cost, validated as its endpoint does, charging nothing. */
    quote: this.post('/api/v1/quote'),
    /**
     * Waits until the generation is completed or failed and answers its final status record: over
     * the live status stream, or by polling every 2-5 s where there is none (`mode: 'poll'` forces it).
     */
    wait: (id: string, options?: WaitOptions): Promise<GenerationStatus> =>
      waitForGeneration(
        {
          status: (generationId, signal) => this.generations.status(generationId, undefined, { signal }),
          openEvents: (generationId, lastEventId, signal) => this.openEvents(generationId, lastEventId, signal),
        },
        id,
        options,
      ),
  };

  readonly billing = {
    plans: this.get('/api/v1/billing/plans'),
    /** The team's balance. */
    credits: this.get('/api/v1/billing/credits'),
    ledger: this.get('/api/v1/billing/ledger'),
    /** The ledger page as CSV. */
    ledgerCsv: (query?: QueryOf<'/api/v1/billing/ledger'>, options?: RequestOptions): Promise<string> =>
      this.send(
        'get',
        '/api/v1/billing/ledger',
        { query, parseAs: 'text' },
        {
          ...options,
          headers: { ...options?.headers, accept: 'text/csv' },
        },
      ),
    usage: this.get('/api/v1/billing/usage'),
    /** Starts a credit purchase: answers the checkout URL to open. */
    topUp: this.post('/api/v1/billing/top-up'),
    checkout: this.getOne('/api/v1/billing/checkouts/{checkout_id}'),
  };

  readonly storyboards = {
    list: this.get('/api/v1/storyboard'),
    get: this.getOne('/api/v1/storyboard/{projectId}'),
  };

  readonly desktopProjects = {
    /** Pushes a new version of a project snapshot. */
    push: this.post('/api/v1/desktop-projects'),
    list: this.get('/api/v1/desktop-projects'),
    get: this.getOne('/api/v1/desktop-projects/{desktopProjectId}'),
    versions: this.getOne('/api/v1/desktop-projects/{desktopProjectId}/versions'),
    /** Uploads a media file into a project (multipart). */
    uploadMedia: async (
      projectId: string,
      file: Blob,
      fileName: string,
      options?: RequestOptions,
    ): Promise<ResponseOf<'/api/v1/desktop-projects/{desktopProjectId}/media'>> => {
      const form = new FormData();
      form.append('file', file, fileName);
      const response = await this.transport(
        new Request(`${this.baseUrl}/api/v1/desktop-projects/${encodeURIComponent(projectId)}/media`, {
          method: 'POST',
          body: form,
          headers: options?.headers,
          signal: options?.signal,
        }),
      );
      const body: unknown = await response.json().catch(() => undefined);
      if (!response.ok) throw errorFromResponse(response, body);
      return body as ResponseOf<'/api/v1/desktop-projects/{desktopProjectId}/media'>;
    },
  };

  readonly models = {
    /** Every model of every kind, with its endpoint, settings and price (`kind` filters). */
    list: this.get('/api/v1/models'),
    images: this.get('/api/v1/models/images'),
    videos: this.get('/api/v1/models/videos'),
  };

  readonly workspaces = {
    list: this.get('/api/v1/workspaces'),
    create: this.post('/api/v1/workspaces'),
    get: this.getOne('/api/v1/workspaces/{workspace_id}'),
  };

  readonly webhooks = {
    /** The team's signing secret. */
    secret: this.get('/api/v1/webhooks/secret'),
    rotateSecret: (options?: RequestOptions): Promise<ResponseOf<'/api/v1/webhooks/secret/rotate'>> =>
      this.send('post', '/api/v1/webhooks/secret/rotate', {}, options),
    deliveries: this.get('/api/v1/webhooks/deliveries'),
    delivery: this.getOne('/api/v1/webhooks/deliveries/{id}'),
    redeliver: this.postOne('/api/v1/webhooks/deliveries/{id}/redeliver'),
    /** Verifies a webhook the service sent (raw body, its headers, the team's `whsec_` secret). */
    verify: verifyWebhook,
  };

  /**
   * Submits with `submit` (one of the async generation calls) and waits for the generation to
   * finish; answers the result URLs. A generation that ends failed is a FailedGenerationError.
   */
  async run<B, R extends { generation_id: string }>(
    submit: (body: B, options?: RequestOptions) => Promise<R>,
    body: B,
    options: RunOptions = {},
  ): Promise<RunResult<R>> {
    const accepted = await submit(body, options);
    const generation = await this.generations.wait(accepted.generation_id, options);
    if (generation.status === 'failed') throw new FailedGenerationError(generation);
    return { accepted, generation, urls: generation.result_urls };
  }

  /** Downloads a result URL to a file (Node only); answers the number of bytes written. */
  async download(url: string, path: string, options: { signal?: AbortSignal } = {}): Promise<number> {
    const { downloadToFile } = await import('./node-download.js');
    return downloadToFile(url, path, options.signal);
  }

  private async *streamText(
    body: Omit<RequestBody<'/api/v1/text/generate'>, 'workspace_id'>,
    options?: RequestOptions,
  ): AsyncIterable<string> {
    // The default text model is the one the model list marks (text/generate's own default).
    const model =
      body.model ?? (await this.models.list({ kind: 'text' }, options)).data.find((entry) => entry.default)?.id;
    if (!model) throw new GenMediaError('The service names no default text model: pass { model }');
    yield* streamChat(this.transport, this.baseUrl, { ...body, model }, options);
  }

  private async openEvents(id: string, lastEventId: string | undefined, signal: AbortSignal) {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (lastEventId) headers['last-event-id'] = lastEventId;
    const response = await this.transport(
      new Request(`${this.baseUrl}/api/v1/generations/${encodeURIComponent(id)}/events`, { headers, signal }),
    );
    if (response.ok && response.headers.get('content-type')?.startsWith('text/event-stream')) return response;
    // No stream (an older service, a proxy that does not pass it, or an error): polling's first
    // read of the status answers the error, if there is one.
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
}

/** The path parameters of a path with one `{name}`. */
function idParam(path: string, id: string): Record<string, string> {
  const name = /\{([^}]+)\}/.exec(path)?.[1];
  if (!name) throw new GenMediaError(`${path} takes no id`);
  return { [name]: id };
}

export type { GenerationStatus, WaitOptions };

import type { VoiceProfile } from '../catalog/voices.ts';
import { WorkError, type WorkErrorKind, type WorkErrorOptions } from '../lib/errors.ts';
import type { RenderedFile } from '../render/file.ts';

/** One result file a provider produced: a rendered file, and what the provider said of it. */
export interface ProviderFile extends RenderedFile {
  /** What the provider reported besides the file (token usage, the text itself, ...). */
  metadata?: Record<string, unknown>;
  /**
   * What the work really cost, for operations charged an upper bound up front (text is charged for
   * max_tokens): the difference to the item's price is refunded when it completes.
   */
  actualCredits?: number;
}

/** One item of work (a generation's item), as a provider runs it. */
export interface WorkItem {
  id: string;
  generationId: string;
  position: number;
  type: string;
  model: string | null;
  teamId: string;
  /** The generation's input (the normalised request). */
  request: Record<string, unknown>;
  /** The item's own input. */
  input: Record<string, unknown>;
  attempt: number;
}

/** What went wrong at a provider, in terms the failure policy acts on. */
export type ProviderErrorKind = WorkErrorKind;

export interface ProviderErrorOptions extends WorkErrorOptions {
  /** The vendor's own code for the failure (an HTTP status, an error type). */
  vendorCode?: string;
}

/** A failure of the provider; `retryable` failures are tried again by the job queue. */
export class ProviderError extends WorkError {
  readonly vendorCode?: string;

  constructor(message: string, retryable: boolean, options: ProviderErrorOptions = {}) {
    super(message, retryable, options);
    this.name = 'ProviderError';
    this.vendorCode = options.vendorCode;
  }
}

/** A file a vendor made: a URL to stream it from (with what the vendor said of it), or its bytes. */
export type OutputFile =
  | {
      url: string;
      contentType?: string;
      fileName?: string;
      size?: number;
      width?: number;
      height?: number;
      /** Headers the file's URL needs (a self-hosted vendor behind an authenticating proxy). */
      headers?: Record<string, string>;
    }
  | {
      data: Buffer;
      contentType: string;
      /** What a provider that makes the file itself knows of it (the simulator). */
      extension?: string;
      width?: number;
      height?: number;
      durationSeconds?: number;
    };

/** What a vendor answered for one unit of work. */
export interface ProviderOutput {
  files: OutputFile[];
  /** The rest of the vendor's answer (seed, timings, text), for the item's result. */
  metadata: Record<string, unknown>;
  /**
   * What the work cost in US dollars, from what the vendor's answer says (OpenRouter's cost, the
   * credits or characters it counted at the operator's rate, Replicate's predict time at its
   * hardware's price); absent when it is unknown, never 0 for unknown.
   */
  vendorCost?: number;
  /** What the work really cost in credits, when the provider knows it (the simulator's text). */
  actualCredits?: number;
}

/**
 * Where a vendor job stood when it was asked to stop: `not_started` the vendor confirmed it stopped
 * before running (nothing is charged for it); `running` it was running, or the vendor did not say
 * (it may be charged); `finished` it had ended first (its result, or failure, stands).
 */
export type CancelAnswer = 'not_started' | 'running' | 'finished';

/** What identifies a vendor job: a small JSON object, persisted with the item. */
export type VendorHandle = Record<string, string | number | null>;

/** An image to make, in the service's own terms (a route's mapping turns it into a vendor's input). */
export interface ImageRequest {
  kind: 'image';
  prompt: string;
  negativePrompt: string | null;
  /** The size asked for; null: the vendor decides (an edit keeps its image's proportions). */
  size: { width: number; height: number } | null;
  /** The aspect ratio asked for ('16:9'), for vendors that take a ratio instead of a size. */
  aspectRatio: string;
  steps: number;
  seed: number;
  /** Reference images (image-to-image), as URLs the vendor can fetch. */
  references: string[];
  lora: { url: string; type: string } | null;
  /** The camera look of an influencer image ('pro', 'smartphone'), when one was asked for. */
  cameraStyle?: string | null;
  /** The influencer video this is a frame of. */
  scene?: InfluencerScene;
}

/**
 * An influencer video as planned, carried by the requests of each of its parts (its opening and
 * closing frames, the video between them) for a provider that makes all of it itself: the
 * simulator draws the frames again to make the video, and speaks the dialog in the voice.
 */
export interface InfluencerScene {
  prompt: string;
  dialog: string | null;
  /** What the opening and closing frames show. */
  opening: string;
  closing: string;
  /** How the camera and the influencer move between the frames. */
  motion: string;
  /** The influencer's face first, then its other references. */
  references: string[];
  aspectRatio: string;
  /** The whole video's (a vendor's clip is shorter, held on its last frame while the dialog runs). */
  durationSeconds: number;
  voice: { id: string; profile: VoiceProfile } | null;
}

/** A LoRA for a video model (Wan 2.2 A14B has two transformers: `high` noise and `low`). */
export interface VideoLora {
  url: string;
  scale: number;
  transformer: 'high' | 'low' | 'both';
}

/** A video to make from a prompt, and from a first frame when one is given (image-to-video). */
export interface VideoRequest {
  kind: 'video';
  prompt: string;
  negativePrompt: string | null;
  /** '16:9', '9:16', '1:1', '4:3', '3:4'. */
  aspectRatio: string;
  /** Whole seconds. */
  durationSeconds: number;
  /** '480p' … '2160p'. */
  resolution: string;
  fps: number;
  /** null: none asked for (the vendor draws its own). */
  seed: number | null;
  /** The first frame (image-to-video), a URL the vendor can fetch; null: text-to-video. */
  firstFrame: string | null;
  /** The last frame, for models that take one. */
  lastFrame: string | null;
  /** Whether the model should make its own soundtrack (models with native audio). */
  audio: boolean;
  loras: VideoLora[];
  /** Set by the LoRA video endpoint, which takes its sampling settings as they are. */
  frames?: number;
  steps?: number;
  guidanceScale?: number;
  promptExpansion?: boolean;
  /** The provider family the request named (provider, quality, watermark), as it named it. */
  family?: { provider: string; quality: string; remove_watermark: boolean } | null;
  /** The influencer video this is (its frames' URLs are filled in before a vendor is asked). */
  scene?: InfluencerScene;
  /** The LoRA video endpoint's LoRAs as the request gave them (`loras` is what vendors take). */
  givenLoras?: ReadonlyArray<{ path: string; scale: number; transformer: string }>;
}

/** A video's lips synced to an audio track. */
export interface LipsyncRequest {
  kind: 'lipsync';
  videoUrl: string;
  audioUrl: string;
}

/** The motion of a reference video transferred onto the character of an image. */
export interface MotionRequest {
  kind: 'motion';
  imageUrl: string;
  videoUrl: string;
  /** Whose orientation the result keeps: the image's (reference ≤ 10 s) or the video's (≤ 30 s). */
  orientation: 'image' | 'video';
  prompt: string | null;
  /** A character (its front view and other views) whose face the result keeps, when one was given. */
  element: ReferenceElement | null;
}

/** A video made larger (and smoother, with a target frame rate). */
export interface UpscaleRequest {
  kind: 'upscale';
  videoUrl: string;
  /** 1-8. */
  factor: number;
  targetFps: number | null;
  /** The upscaler's own model name (Topaz: 'Proteus', 'Starlight Precise 2.5', ...), when it has models. */
  model: string | null;
  /** H.264 output instead of the upscaler's default codec. */
  h264: boolean;
  /** The enhancement model's tuning (Topaz: compression, noise, halo, grain, recover_detail, softness). */
  tuning: Record<string, number>;
}

/** A 3D model from a prompt, or from an image when one is given. */
export interface Model3dRequest {
  kind: 'model3d';
  prompt: string;
  imageUrl: string | null;
  /** preview: geometry only; full: textured. */
  mode: 'preview' | 'full';
  artStyle: string;
  topology: 'triangle' | 'quad';
  targetPolycount: number;
  symmetry: 'auto' | 'on' | 'off';
  tPose: boolean;
  pbr: boolean;
  promptExpansion: boolean;
  /** null: none asked for (the vendor draws its own). */
  seed: number | null;
}

/** A person in a portrait speaking an audio track (a talking head). */
export interface TalkingHeadRequest {
  kind: 'talking_head';
  /** The portrait, or the first frame, to animate. */
  imageUrl: string;
  /** The speech: uploaded, or spoken from the script in the chosen voice before the submit. */
  audioUrl: string;
  /** What is said, when it is known (a script); null for uploaded audio. */
  script: string | null;
  /** Camera or scene direction, for models that take a prompt; null when none was given. */
  prompt: string | null;
  durationSeconds: number;
  resolution: string;
  aspectRatio: string;
  /**
   * How the speech is made, for a provider that makes the video itself: uploaded (`audioUrl`
   * before any submit) or generated from the script in the voice with these settings.
   */
  speech?: {
    mode: 'generate' | 'upload';
    voiceProfile: VoiceProfile | null;
    speed: number;
    volume: number;
    emotion: string;
    language: string;
  };
  /** The location template the scene is composed in, when no start image is given. */
  template?: { id: string; angle: string } | null;
}

/** One character of a reference video: its front view and other views of it. */
export interface ReferenceElement {
  frontal: string;
  references: string[];
}

/**
 * A video of characters and references from a prompt written in our syntax: `@Element1`… names
 * the elements in order, `@Image1`… the images; a mapping writes them the model's own way.
 */
export interface ReferenceRequest {
  kind: 'reference';
  /** The whole prompt, in our syntax. */
  prompt: string;
  /** The shots of a multi-shot request in order (one shot, the whole prompt, otherwise). */
  shots: Array<{ prompt: string; durationSeconds: number }>;
  /** The influencer's face first (as Element1) when one was named, then the request's elements. */
  elements: ReferenceElement[];
  images: string[];
  startFrame: string | null;
  endFrame: string | null;
  durationSeconds: number;
  aspectRatio: string;
  resolution: string;
  /** Whether the model should make its own soundtrack. */
  audio: boolean;
  /** What is spoken over the video, in `voiceProfile` (a preset's when null), when a script was given. */
  script?: string | null;
  voiceProfile?: VoiceProfile | null;
  /**
   * The prompt and shots in the model's own words (the references named as it names them) and
   * every reference image in order: what a provider that draws the video itself reads.
   */
  drawn?: { prompt: string; shots: Array<{ prompt: string; durationSeconds: number }>; images: string[] };
}

/** Text from a prompt, with an optional system prompt. */
export interface TextRequest {
  kind: 'text';
  prompt: string;
  system: string | null;
  temperature: number;
  /** The most tokens the answer may have (what was charged for). */
  maxTokens: number;
  /** The model's credits per 1,000 tokens: what a provider that counts the tokens itself settles with. */
  price?: { input_per_1k: number; output_per_1k: number };
  /**
   * An OpenAI chat request's own fields, sent as they are to an OpenAI-compatible route (`messages`
   * then replaces the prompt and the system prompt). A route that cannot honour one refuses it.
   */
  chat?: ChatPassthrough;
}

/** What an OpenAI chat request says beyond a prompt: its messages, tools, output format and sampling. */
export interface ChatPassthrough {
  messages: Array<Record<string, unknown>>;
  tools?: unknown[];
  tool_choice?: unknown;
  parallel_tool_calls?: boolean;
  response_format?: Record<string, unknown>;
  stop?: string | string[];
  seed?: number;
  top_p?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  logprobs?: boolean;
  top_logprobs?: number;
  /** Choices asked for (absent: 1); each was charged for. */
  n?: number;
}

/** The fields of a chat request an OpenAI-compatible route is given as they are (when given). */
export const CHAT_PASSED_FIELDS = [
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'stop',
  'seed',
  'top_p',
  'frequency_penalty',
  'presence_penalty',
  'logprobs',
  'top_logprobs',
  'n',
] as const satisfies ReadonlyArray<keyof ChatPassthrough>;

/**
 * One `chat.completion.chunk` as an OpenAI-compatible server streams it (its `choices` with their
 * `delta`s, and `usage` in the last one): what a streaming route hands on as it arrives.
 */
export interface ChatChunk {
  choices: Array<{
    index: number;
    delta: Record<string, unknown>;
    logprobs?: unknown;
    finish_reason?: string | null;
  }>;
  usage?: Record<string, unknown> | null;
}

/**
 * Where a route streams its answer as it comes, when someone waits for it piece by piece (a
 * streamed text request): `chunk` is called for each piece; `gone` aborts when that someone left,
 * and the route then stops its call and answers what it had (with the usage the vendor reported,
 * if any).
 */
export interface StreamSink {
  chunk(chunk: ChatChunk): void;
  gone: AbortSignal;
}

/** A song: from a description, or custom (lyrics and/or a style) when given. */
export interface MusicRequest {
  kind: 'music';
  /** What the song is about (the description, when no lyrics are given). */
  prompt: string;
  lyrics: string | null;
  /** Genre and style words. */
  style: string | null;
  title: string | null;
  instrumental: boolean;
  vocalGender: 'male' | 'female' | null;
  /**
   * The song as it was asked for, for a provider that renders it itself (vendors read the fields
   * above, which a described song leaves empty).
   */
  song?: {
    title: string;
    style: string;
    lyrics: string | null;
    vocalGender: 'm' | 'f' | null;
    durationSeconds: number;
  };
}

/** Speech from a text in one voice. */
export interface SpeechRequest {
  kind: 'speech';
  text: string;
  /**
   * The voice at each vendor that can speak it, by provider id: ElevenLabs' voice id (a preset
   * mapped by configuration, or a voice made there), MiniMax's voice name on fal (the presets are
   * named after them). A route whose provider is not here cannot speak this voice.
   */
  voices: Readonly<Record<string, string>>;
  /** mp3, wav, ogg, flac, aac or pcm (our TTS formats); the service converts what a vendor cannot make. */
  format: string;
  /** 0.6-1.5; what a vendor cannot reach is made up by the service (metadata `speed`: what it spoke at). */
  speed: number;
  /** ISO 639-1. */
  language: string;
  /** One of our TTS emotions. */
  emotion: string;
  seed: number | null;
  /** The voice as the service speaks it itself (when no vendor can), and the gain (0.5-2). */
  profile?: VoiceProfile;
  volume?: number;
}

/** A voice made at a vendor: cloned from a recording, or designed from a description. */
export interface VoiceRequest {
  kind: 'voice';
  method: 'clone' | 'design';
  name: string;
  /** What the voice is like: the design prompt, or a clone's description; null when none was given. */
  description: string | null;
  /** The recording to clone (a URL the service fetches under its outbound policy); null for a design. */
  sampleUrl: string | null;
  /** Our id of the voice being made (what the service's own voice of a description is drawn from). */
  voiceId?: string;
}

/** What an item asks of a vendor, in the service's own terms; a route's mapping reads one kind. */
export type VendorRequest =
  | ImageRequest
  | VideoRequest
  | LipsyncRequest
  | MotionRequest
  | UpscaleRequest
  | Model3dRequest
  | TalkingHeadRequest
  | ReferenceRequest
  | TextRequest
  | MusicRequest
  | SpeechRequest
  | VoiceRequest;

/** Whether a request brings images to start from: a route's image endpoint then serves it. */
export function startsFromImages(request: VendorRequest): boolean {
  switch (request.kind) {
    case 'image':
      return request.references.length > 0;
    case 'video':
      return request.firstFrame !== null;
    case 'model3d':
      return request.imageUrl !== null;
    case 'reference':
      return request.startFrame !== null;
    default:
      return false;
  }
}

/** One unit of work, as an adapter submits it. */
export interface SubmitRequest {
  /** The vendor's endpoint (model id, path) the route names. */
  endpoint: string;
  /** The input, already mapped to the vendor's field names. */
  input: Record<string, unknown>;
  /**
   * Unique per attempt of an item, and the same when a crash makes that attempt be sent again:
   * vendors that take an idempotency key (or a client-chosen job id) get it, so it never runs twice.
   */
  idempotencyKey: string;
  /** Where the vendor should post its completion, when it can reach us. */
  webhookUrl?: string;
  /**
   * How long the vendor may hold the submit to answer with the finished result (short work, for
   * vendors that can: Replicate's `Prefer: wait`); 0 or absent: answer at once.
   */
  holdS?: number;
  signal?: AbortSignal;
  /** The item the work is for: what a provider that makes the work itself (the simulator) reads. */
  item?: WorkItem;
  /** The request in the service's own terms, for a provider that reads it as it is (the simulator). */
  request?: VendorRequest;
  /** Where a provider that can stream its answer sends its pieces as they arrive (text only). */
  stream?: StreamSink;
}

export type SubmitResult =
  | { kind: 'done'; output: ProviderOutput }
  | { kind: 'accepted'; vendorRequestId: string; handle: VendorHandle };

export type PollResult =
  | {
      kind: 'pending';
      /** 0-1, when the vendor says. */
      progress?: number;
      queuePosition?: number;
      /** When to ask again. */
      pollAfterMs: number;
      /**
       * The job's handle from now on, when the vendor's work moved on to another task (Meshy's
       * refine after its preview): recorded before the next poll.
       */
      handle?: VendorHandle;
    }
  | { kind: 'done'; output: ProviderOutput }
  | { kind: 'failed'; error: ProviderError };

/** A verified vendor webhook: which job it concerns and what it says of it. */
export interface WebhookEvent {
  vendorRequestId: string;
  result: PollResult;
}

/** A webhook whose signature, timestamp or shape is not acceptable: answered 401, nothing changes. */
export class WebhookRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookRejectedError';
  }
}

/** Whether a configured vendor answers with our credentials, as `check` found. */
export interface ProviderCheck {
  reachable: boolean | null;
  detail: string;
}

/** The fetch adapters are given (the outbound-policy fetch in the service, any fetch in tests). */
export type Fetch = (url: string, init?: RequestInit) => Promise<Response>;

/**
 * A vendor behind one interface: HTTP mapping only. Adapters get their settings and a fetch;
 * they never reach the database, the job queue, storage or the configuration.
 */
export interface Provider {
  readonly id: string;
  /**
   * A submit sent again with the same idempotency key never starts a second job (it answers the
   * first): a submit whose outcome is unknown is then sent again instead of failed.
   */
  readonly idempotentSubmit?: boolean;
  /** Sends one unit of work: a finished output, or a handle to poll (or to wait for a webhook on). */
  submit(request: SubmitRequest): Promise<SubmitResult>;
  /** Where a vendor job stands. */
  poll(handle: VendorHandle, signal?: AbortSignal): Promise<PollResult>;
  /**
   * Asks the vendor to stop the job, and says where the job stood when it was asked: whether the
   * vendor confirmed it stopped before running (and charges nothing), or had already finished.
   */
  cancel?(handle: VendorHandle): Promise<CancelAnswer>;
  /**
   * One harmless authenticated call (an account or models read, never paid work): reachable true or
   * false with why; null when the vendor has no such call.
   */
  check?(): Promise<ProviderCheck>;
  /** Verifies a webhook of this vendor; throws WebhookRejectedError when it is not genuine. */
  verifyWebhook?(headers: Record<string, string | string[] | undefined>, rawBody: Buffer): Promise<WebhookEvent>;
}

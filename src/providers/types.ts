/** One result file a provider produced. */
export interface ProviderFile {
  data: Buffer;
  contentType: string;
  /** File extension without the dot: png, mp4, mp3, glb, txt. */
  extension: string;
  width?: number;
  height?: number;
  durationSeconds?: number;
  /** What the provider reported besides the file (token usage, the text itself, ...). */
  metadata?: Record<string, unknown>;
  /**
   * What the work really cost, for operations charged an upper bound up front (text is charged for
   * max_tokens): the difference to the item's price is refunded when it completes.
   */
  actualCredits?: number;
}

/** A failure of the provider; `retryable` failures are tried again by the job queue. */
export class ProviderError extends Error {
  readonly retryable: boolean;

  constructor(message: string, retryable: boolean) {
    super(message);
    this.name = 'ProviderError';
    this.retryable = retryable;
  }
}

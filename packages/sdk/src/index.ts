// @genmedia/sdk: a typed client of the Generative Media Service.
export {
  GenMedia,
  type GenMediaOptions,
  type QueryOf,
  type RequestBody,
  type RequestOptions,
  type ResponseOf,
  type RunResult,
  type Schemas,
  VERSION,
} from './client.js';
export * from './errors.js';
export type { components, paths } from './schema.js';
export { newIdempotencyKey } from './transport.js';
export { type GenerationStatus, isFinished, type WaitOptions } from './wait.js';
export { type GenerationWebhookEvent, verifyWebhook, type WebhookHeaders } from './webhooks.js';

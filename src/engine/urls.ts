import type { Deps } from '../app-types.ts';
import { invalidField, WorkError } from '../lib/errors.ts';
import { assertPublicUrl, FetchFailedError, safeFetch, UnsafeUrlError } from '../lib/safe-fetch.ts';
import { isInputKey } from '../storage/keys.ts';
import { readStored } from '../storage/read.ts';
import type { MediaSigner } from '../storage/signed-urls.ts';
import type { Storage } from '../storage/types.ts';
import type { GenerationPlan } from './types.ts';

/** Largest media file fetched from a user URL. */
export const MAX_MEDIA_BYTES = 50 * 1024 * 1024;

/**
 * Refuses, with a 400 naming the field, any user URL (media or webhook) that is not http(s) or
 * does not resolve to public addresses, before anything is charged. URLs of our own storage pass.
 */
export async function checkUserUrls(deps: Pick<Deps, 'storage' | 'config'>, plan: GenerationPlan): Promise<void> {
  const urls = [...(plan.urls ?? [])];
  if (plan.webhookUrl) urls.push({ field: 'webhook', url: plan.webhookUrl });
  await Promise.all(
    urls.map(async ({ field, url }) => {
      if (deps.storage.keyFromUrl(url) !== undefined) return;
      try {
        await assertPublicUrl(url, { allowPrivate: deps.config.allowPrivateUrls });
      } catch (err) {
        if (err instanceof UnsafeUrlError) throw invalidField(field, err.reason);
        throw err;
      }
    }),
  );
}

/**
 * The key of an input copy behind a signed URL of ours (as a vendor adapter that fetches the bytes
 * itself is given it), to be read from storage rather than over HTTP; undefined when the URL is not
 * one of those. Read only with a valid, unexpired signature, as the media route would serve it:
 * a URL of ours naming an input copy without one is refused (WorkError, not retryable).
 */
function signedInputKey(storage: Storage, signer: MediaSigner, url: string): string | undefined {
  const query = url.indexOf('?');
  if (query < 0) return undefined;
  const key = storage.keyFromUrl(url.slice(0, query));
  if (key === undefined || !isInputKey(key)) return undefined;
  const params = new URLSearchParams(url.slice(query + 1));
  if (!signer.verify(key, params.get('expires') ?? undefined, params.get('signature') ?? undefined)) {
    throw new WorkError(`refused URL ${url.slice(0, query)}: its signature is not valid or has expired`, false);
  }
  return key;
}

/**
 * The media reader of the workers: our own URLs are read from storage directly (an input copy at
 * a signed URL only when its signature is valid), any other goes through the outbound policy with
 * a byte cap. Failures become WorkErrors (network trouble and 5xx retryable; refusals and 4xx
 * not).
 */
export function createMediaFetcher(
  storage: Storage,
  signer: MediaSigner,
  allowPrivate: boolean,
): (url: string) => Promise<Buffer> {
  return async (url) => {
    const key = storage.keyFromUrl(url) ?? signedInputKey(storage, signer, url);
    if (key !== undefined) {
      const data = await readStored(storage, key);
      if (!data) throw new WorkError(`media not found: ${url}`, false);
      return data;
    }
    try {
      return (await safeFetch(url, { allowPrivate, maxBytes: MAX_MEDIA_BYTES })).body;
    } catch (err) {
      if (err instanceof UnsafeUrlError) throw new WorkError(`refused URL ${url}: ${err.reason}`, false);
      if (err instanceof FetchFailedError) throw new WorkError(`could not fetch ${url}: ${err.message}`, err.retryable);
      throw err;
    }
  };
}

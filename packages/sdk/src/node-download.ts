/// <reference types="node" />
// Downloading a result to a file: Node only, loaded by GenMedia.download when it is called, so the
// rest of the SDK imports nothing of Node's and runs in browsers.
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError, errorFromResponse } from './errors.js';

/** Streams `url` into `path` (through a temporary file, renamed when complete); answers the bytes written. */
export async function downloadToFile(url: string, path: string, signal?: AbortSignal): Promise<number> {
  const response = await fetch(url, { signal });
  if (!response.ok || !response.body) {
    const body: unknown = await response.json().catch(() => undefined);
    throw response.ok
      ? new ApiError({ status: response.status, code: 'unknown', message: 'empty body' })
      : errorFromResponse(response, body);
  }
  const partial = `${path}.part`;
  let bytes = 0;
  const counted = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
  counted.on('data', (chunk: Uint8Array) => {
    bytes += chunk.length;
  });
  try {
    await pipeline(counted, createWriteStream(partial), { signal });
    await rename(partial, path);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
  return bytes;
}

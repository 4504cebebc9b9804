import type { Storage } from './types.ts';

/** A stored object's bytes, whole (for files that are processed in memory); undefined when there is none. */
export async function readStored(storage: Storage, key: string): Promise<Buffer | undefined> {
  const object = await storage.get(key);
  if (!object) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of object.body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

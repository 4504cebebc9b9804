// Reading untyped JSON (vendor answers, webhook bodies) one field at a time.

/** The value as an object with string keys, or undefined when it is not a plain object. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A JSON text parsed as an object, or undefined when it is not JSON or not an object. */
export function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    return asRecord(JSON.parse(text));
  } catch {
    return undefined;
  }
}

// Determinism for the simulator's renderers: SHA-256 of their canonical inputs and a PRNG
// seeded from it. Changing the generator's arithmetic changes every simulated output.
import { createHash } from 'node:crypto';

/** SHA-256 digest of a string or bytes. */
export function sha256(data: string | Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}

/** sfc32 seeded from 16 bytes of a digest: a small, fast, well-mixed 32-bit generator. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(digest: Buffer) {
    this.a = digest.readUInt32LE(0);
    this.b = digest.readUInt32LE(4);
    this.c = digest.readUInt32LE(8);
    this.d = digest.readUInt32LE(12) | 1;
    for (let i = 0; i < 12; i++) this.next();
  }

  /** Seeded from the SHA-256 of the canonical JSON of `parts`. */
  static from(...parts: unknown[]): Rng {
    return new Rng(sha256(JSON.stringify(parts)));
  }

  /** Uniform in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** Uniform in [min, max). */
  range(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  /** Uniform in [-1, 1), for noise. */
  signed(): number {
    return this.next() * 2 - 1;
  }

  /** 1 ± spread, uniformly. */
  jitter(spread: number): number {
    return 1 + (this.next() * 2 - 1) * spread;
  }

  /** Index into `weights`, chosen with probability proportional to each weight. */
  weighted(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) total += w;
    let r = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i] ?? 0;
      if (r < 0) return i;
    }
    return weights.length - 1;
  }
}

// Ids and random tokens: time-ordered, well-formed, and never repeated across draws of the random
// pool (including past the point where it is filled again).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newId, pooledRandomBytes } from '../src/lib/ids.ts';

describe('ids and pooled random bytes', () => {
  test('every draw is its own: no two of 3 pools’ worth of 16-byte draws are equal, and none is all zeros', () => {
    const seen = new Set<string>();
    for (let i = 0; i < (3 * 4096) / 16 + 7; i++) {
      const bytes = pooledRandomBytes(16);
      assert.equal(bytes.length, 16);
      const hex = bytes.toString('hex');
      assert.notEqual(hex, '0'.repeat(32));
      assert.ok(!seen.has(hex), `draw ${i} repeats an earlier one`);
      seen.add(hex);
    }
  });

  test('a draw is a copy: filling the pool again later leaves it as it was', () => {
    const first = pooledRandomBytes(16);
    const kept = Buffer.from(first);
    for (let i = 0; i < 600; i++) pooledRandomBytes(16);
    assert.deepEqual(first, kept);
  });

  test('ids are well-formed, distinct and sort by the time they were made', async () => {
    const ids = Array.from({ length: 2000 }, () => newId('gen'));
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ids) assert.match(id, /^gen_[0-9a-hjkmnp-tv-z]{26}$/);
    const earlier = newId('item');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const later = newId('item');
    assert.ok(earlier < later);
  });
});

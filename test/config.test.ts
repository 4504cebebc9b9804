// Settings that are parsed beyond their schema: what an operator writes and what it becomes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_ITEM_DEADLINES_S, loadConfig } from '../src/config.ts';

test('ITEM_DEADLINE_S overrides the deadline of the kinds it names and keeps the others', () => {
  assert.deepEqual(loadConfig({}).items.deadlinesS, DEFAULT_ITEM_DEADLINES_S);
  const set = loadConfig({ ITEM_DEADLINE_S: 'video=3600,image=600' }).items.deadlinesS;
  assert.equal(set.video, 3600);
  assert.equal(set.image, 600);
  assert.equal(set.text, DEFAULT_ITEM_DEADLINES_S.text);
});

test('a deadline of an unknown kind, or not a whole number of seconds, is refused at start', () => {
  for (const bad of ['videos=10', 'video=ten', 'video=1.5', 'video=', ',video=10', 'video=10;image=5']) {
    assert.throws(() => loadConfig({ ITEM_DEADLINE_S: bad }), /ITEM_DEADLINE_S/, bad);
  }
});

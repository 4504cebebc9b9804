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

test('a malformed OPENAI_COMPATIBLE_MODELS stops the start, naming the setting', () => {
  assert.deepEqual(
    loadConfig({ OPENAI_COMPATIBLE_MODELS: '{"openai/gpt-4o-mini":"llama3.2:3b"}' }).providers.openAiCompatible
      .modelNames,
    { 'openai/gpt-4o-mini': 'llama3.2:3b' },
  );
  assert.throws(
    () => loadConfig({ OPENAI_COMPATIBLE_MODELS: '{gpt: llama}' }),
    /OPENAI_COMPATIBLE_MODELS: must be JSON/,
  );
  for (const bad of ['["llama3.2:3b"]', '"llama3.2:3b"', '{"openai/gpt-4o-mini":3}']) {
    assert.throws(
      () => loadConfig({ OPENAI_COMPATIBLE_MODELS: bad }),
      /OPENAI_COMPATIBLE_MODELS: must be a JSON object of strings/,
      bad,
    );
  }
});

test('a malformed ELEVENLABS_VOICE_MAP stops the start, naming the setting', () => {
  assert.deepEqual(
    loadConfig({ ELEVENLABS_VOICE_MAP: '{"Wise_Woman":"JBFqnCBsd6RMkjVDRZzb"}' }).providers.elevenLabs.voiceMap,
    {
      Wise_Woman: 'JBFqnCBsd6RMkjVDRZzb',
    },
  );
  assert.throws(() => loadConfig({ ELEVENLABS_VOICE_MAP: '{Wise_Woman: abc}' }), /ELEVENLABS_VOICE_MAP: must be JSON/);
  for (const bad of ['["JBFqnCBsd6RMkjVDRZzb"]', 'null', '{"Wise_Woman":{"id":"abc"}}']) {
    assert.throws(
      () => loadConfig({ ELEVENLABS_VOICE_MAP: bad }),
      /ELEVENLABS_VOICE_MAP: must be a JSON object of strings/,
      bad,
    );
  }
});

test('an ELEVENLABS_VOICE_MAP key that names no preset voice stops the start, naming the key', () => {
  for (const [map, unknown] of [
    [{ Wise_Womn: 'abc' }, '"Wise_Womn"'],
    [{ wise_woman: 'abc' }, '"wise_woman"'],
    [{ Wise_Woman: 'abc', JBFqnCBsd6RMkjVDRZzb: 'abc' }, '"JBFqnCBsd6RMkjVDRZzb"'],
  ] as const) {
    assert.throws(
      () => loadConfig({ ELEVENLABS_VOICE_MAP: JSON.stringify(map) }),
      (err: Error) =>
        err.message.includes('ELEVENLABS_VOICE_MAP') && err.message.includes(`preset voice has the id ${unknown}`),
      unknown,
    );
  }
});

test('the cost and margin settings are read, and a bad one stops the start naming it', () => {
  const config = loadConfig({
    CREDIT_VALUE_USD: '0.01',
    ELEVENLABS_USD_PER_1K_CHARS: '0.3',
    MESHY_USD_PER_CREDIT: '0.02',
    VENDOR_UNIT_PRICES_USD: '{"fal fal-ai/flux/schnell": 0.003, "comfyui text-to-image": 0}',
    REPLICATE_MODEL_HARDWARE: '{"black-forest-labs/flux-dev-lora": "gpu-h100"}',
  });
  assert.equal(config.creditValueUsd, 0.01);
  assert.equal(config.providers.elevenLabs.usdPer1kChars, 0.3);
  assert.equal(config.providers.meshy.usdPerCredit, 0.02);
  assert.deepEqual(config.providers.unitPricesUsd, { 'fal fal-ai/flux/schnell': 0.003, 'comfyui text-to-image': 0 });
  assert.deepEqual(config.providers.replicate.modelHardware, { 'black-forest-labs/flux-dev-lora': 'gpu-h100' });
  // Unset: unknown, never 0.
  const unset = loadConfig({});
  assert.equal(unset.creditValueUsd, undefined);
  assert.equal(unset.providers.elevenLabs.usdPer1kChars, undefined);
  assert.equal(unset.providers.meshy.usdPerCredit, undefined);
  assert.deepEqual(unset.providers.unitPricesUsd, {});

  for (const [env, message] of [
    [{ CREDIT_VALUE_USD: '0' }, /CREDIT_VALUE_USD/],
    [{ CREDIT_VALUE_USD: 'a cent' }, /CREDIT_VALUE_USD/],
    [{ MESHY_USD_PER_CREDIT: '-1' }, /MESHY_USD_PER_CREDIT/],
    [{ ELEVENLABS_USD_PER_1K_CHARS: 'cheap' }, /ELEVENLABS_USD_PER_1K_CHARS/],
    [{ VENDOR_UNIT_PRICES_USD: '{fal: 1}' }, /VENDOR_UNIT_PRICES_USD: must be JSON/],
    [
      { VENDOR_UNIT_PRICES_USD: '{"fal-ai/flux/schnell": 0.003}' },
      /VENDOR_UNIT_PRICES_USD: "fal-ai\/flux\/schnell" is not "<provider> <endpoint>"/,
    ],
    [
      { VENDOR_UNIT_PRICES_USD: '{"fal fal-ai/flux/schnell": "0.003"}' },
      /VENDOR_UNIT_PRICES_USD: the price of "fal fal-ai\/flux\/schnell" must be a number/,
    ],
    [{ VENDOR_UNIT_PRICES_USD: '{"fal fal-ai/flux/schnell": -1}' }, /VENDOR_UNIT_PRICES_USD: the price/],
    [
      { REPLICATE_MODEL_HARDWARE: '{"black-forest-labs/flux-dev": "gpu-z9000"}' },
      /REPLICATE_MODEL_HARDWARE: "gpu-z9000" is not Replicate hardware/,
    ],
    [
      { REPLICATE_MODEL_HARDWARE: '{"flux-dev": "gpu-h100"}' },
      /REPLICATE_MODEL_HARDWARE: "flux-dev" is not owner\/name/,
    ],
  ] as const) {
    assert.throws(() => loadConfig(env), message, JSON.stringify(env));
  }
});

test('OTEL_PROPAGATORS: trace context goes out with tracecontext among its names and without none; other names are kept quiet', () => {
  const propagate = (value?: string) =>
    loadConfig(value === undefined ? {} : { OTEL_PROPAGATORS: value }).tracing.propagate;
  assert.equal(propagate(), true, 'the default, tracecontext,baggage');
  assert.equal(propagate('tracecontext'), true);
  assert.equal(propagate(' b3 , tracecontext '), true);
  assert.equal(propagate('none'), false);
  assert.equal(propagate('tracecontext,none'), false);
  assert.equal(
    propagate('b3'),
    false,
    'a propagator the service does not have carries nothing, and does not stop the start',
  );
  assert.equal(propagate('baggage'), false);
  assert.throws(() => loadConfig({ OTEL_PROPAGATORS: 'trace\ncontext' }), /OTEL_PROPAGATORS/);
});

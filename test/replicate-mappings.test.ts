// Every Replicate route of the image catalogs, checked against the input schema its model publishes
// (test/fixtures/replicate/input-schemas.json; where each came from: the README.md beside it): for
// every aspect ratio a model offers, with input images, a negative prompt and a LoRA as the model
// allows, the input we would send must be valid: no unknown field, every required one, values in
// range. The mappings are applied here the way the registry applies a route (its image endpoint,
// then its fixed params); test/vendor-replicate.test.ts sends one through the whole service.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dimensionsFor } from '../src/catalog/image-sizes.ts';
import { loadMediaCatalog } from '../src/catalog/media-models.ts';
import { type ImageModel, loadModelCatalog, type ModelRoute } from '../src/catalog/models.ts';
import { loadConfig } from '../src/config.ts';
import { WorkError } from '../src/lib/errors.ts';
import type { Mapping } from '../src/providers/mapping.ts';
import { createProviderRegistry } from '../src/providers/registry.ts';
import { parseModelReference } from '../src/providers/replicate/client.ts';
import { REPLICATE_MAPPINGS } from '../src/providers/replicate/mappings.ts';
import { type ImageRequest, startsFromImages } from '../src/providers/types.ts';
import { errorsText, replicateFixture, replicateValidatorOf } from './vendor-schemas.ts';

const MAPPINGS: Record<string, Mapping> = REPLICATE_MAPPINGS;

/** The endpoint a request takes on a route and the input sent, as the registry would pick them. */
function mapped(route: ModelRoute, request: ImageRequest): { endpoint: string; input: Record<string, unknown> } {
  const picked =
    startsFromImages(request) && route.image_endpoint && route.image_mapping
      ? { ...route, endpoint: route.image_endpoint, mapping: route.image_mapping }
      : route;
  const mapping = picked.mapping ? MAPPINGS[picked.mapping] : undefined;
  assert.ok(mapping, `${picked.endpoint}: no Replicate mapping named ${picked.mapping}`);
  return { endpoint: picked.endpoint, input: { ...mapping(request), ...(picked.params ?? {}) } };
}

const catalog = loadModelCatalog();
const IMAGE = 'https://cdn.example.com/in.png';
const LORA = { url: 'https://cdn.example.com/style.safetensors', type: 'flux-1-dev' };
const replicateRoutes = (model: ImageModel): ModelRoute[] => model.routes.filter((r) => r.provider === 'replicate');
const served = (models: ImageModel[]): ImageModel[] => models.filter((m) => replicateRoutes(m).length > 0);

function sample(overrides: Partial<ImageRequest> = {}): ImageRequest {
  return {
    kind: 'image',
    prompt: 'a lighthouse at dusk',
    negativePrompt: null,
    size: { width: 1024, height: 1024 },
    aspectRatio: '1:1',
    steps: 28,
    seed: 7,
    references: [],
    lora: null,
    ...overrides,
  };
}

/** What a model's catalog entry lets a user ask for, that its Replicate route must take. */
interface Case {
  label: string;
  model: ImageModel;
  request: ImageRequest;
}

function cases(): Case[] {
  const out: Case[] = [];
  for (const kind of ['image', 'face'] as const) {
    for (const model of served(catalog[kind])) {
      const caps = model.capabilities;
      for (const ratio of model.settings.aspect_ratios) {
        const request = sample({ aspectRatio: ratio, size: dimensionsFor(ratio) });
        const label = `${kind} ${model.id} ${ratio}`;
        out.push({ label, model, request });
        // The API takes a negative prompt only for the models that say they take one.
        if (caps.negative_prompt) {
          out.push({ label: `${label} +negative`, model, request: { ...request, negativePrompt: 'blurry' } });
        }
        if (caps.image_to_image && caps.max_reference_images > 0) {
          const references = Array<string>(caps.max_reference_images).fill(IMAGE);
          out.push({ label: `${label} +images`, model, request: { ...request, references } });
        }
        if (caps.supports_lora) out.push({ label: `${label} +lora`, model, request: { ...request, lora: LORA } });
      }
    }
  }
  for (const model of served(catalog.edit)) {
    const caps = model.capabilities;
    for (const ratio of model.settings.aspect_ratios) {
      // An edit is sized only by the models that take a size; the others keep their image's.
      const size = caps.custom_dimensions ? dimensionsFor(ratio) : null;
      const aspectRatio = size ? `${size.width}:${size.height}` : '1:1';
      const references = Array<string>(Math.max(1, caps.max_reference_images)).fill(IMAGE);
      const request = sample({ size, aspectRatio, references });
      out.push({ label: `edit ${model.id} ${ratio}`, model, request });
      if (caps.text_to_image) {
        out.push({ label: `edit ${model.id} ${ratio} +text`, model, request: { ...request, references: [] } });
      }
    }
  }
  return out;
}

// What a model's entry offers and its Replicate model cannot take: the request is refused with the
// reason (invalid_input, refunded), never sent without it. Adding to this list is a decision.
const KNOWN_GAPS = [
  'face flux-1-krea-dev +lora', // flux-krea-dev takes no LoRA
  'image flux-1-krea-dev +lora',
  'image flux-1-schnell +lora', // flux-schnell takes none (as fal's route)
  'image ideogram-v3 +negative', // ideogram-v3-balanced has no negative prompt
  'image sdxl +lora', // its replicate_weights are weights trained on Replicate, not a LoRA file
];

test('at least ten catalog models have a Replicate route behind their fal route', () => {
  const models = [...catalog.image, ...catalog.edit, ...catalog.face].filter((m) => replicateRoutes(m).length > 0);
  assert.ok(new Set(models.map((m) => `${m.kind} ${m.id}`)).size >= 10, `${models.length} models`);
  for (const model of models) {
    const last = model.routes.findLastIndex((r) => r.provider === 'fal');
    const first = model.routes.findIndex((r) => r.provider === 'replicate');
    assert.ok(last >= 0 && first > last, `${model.kind} ${model.id}: the Replicate route comes after fal's`);
  }
});

test('every Replicate route names a model whose schema is vendored with its source, and a mapping we have', () => {
  // The video routes too (test/replicate-video-mappings.test.ts): the fixture and the mappings serve both.
  const routes = [...catalog.image, ...catalog.edit, ...catalog.face, ...loadMediaCatalog().video].flatMap((m) =>
    m.routes.filter((r) => r.provider === 'replicate'),
  );
  const used = new Set<string>();
  const mappings = new Set<string>();
  for (const route of routes) {
    for (const [endpoint, mapping] of [
      [route.endpoint, route.mapping],
      [route.image_endpoint, route.image_mapping],
    ] as const) {
      if (!endpoint) continue;
      replicateValidatorOf(endpoint);
      const { owner, name } = parseModelReference(endpoint);
      used.add(`${owner}/${name}`);
      assert.ok(mapping && MAPPINGS[mapping], `${endpoint}: mapping ${mapping} exists`);
      mappings.add(mapping);
      const source = replicateFixture.sources[`${owner}/${name}`];
      assert.ok(source?.repository && source.commit && source.path, `${owner}/${name}: where its schema came from`);
    }
  }
  assert.deepEqual([...used].sort(), Object.keys(replicateFixture.models).sort(), 'every vendored schema is used');
  assert.deepEqual([...mappings].sort(), Object.keys(MAPPINGS).sort(), 'every mapping is used');
});

test('every request a model allows maps to a valid input of its Replicate model', () => {
  const gaps: string[] = [];
  let checked = 0;
  for (const c of cases()) {
    for (const route of replicateRoutes(c.model)) {
      let sent: { endpoint: string; input: Record<string, unknown> };
      try {
        sent = mapped(route, c.request);
      } catch (err) {
        assert.ok(err instanceof WorkError && err.kind === 'invalid_input', `${c.label}: ${String(err)}`);
        gaps.push(c.label.replace(/ \d+:\d+/, ''));
        continue;
      }
      const validate = replicateValidatorOf(sent.endpoint);
      assert.ok(
        validate(sent.input),
        `${c.label} → ${sent.endpoint}: ${errorsText(validate)}\n${JSON.stringify(sent.input)}`,
      );
      assert.equal(sent.input.prompt, c.request.prompt);
      checked += 1;
    }
  }
  assert.ok(checked > 300, `${checked} inputs checked`);
  assert.deepEqual([...new Set(gaps)].sort(), KNOWN_GAPS);
});

test('the fal route still serves first where fal is configured', () => {
  const registry = createProviderRegistry(
    loadConfig({ FAL_KEY: 'test-key', FAL_QUEUE_URL: 'http://127.0.0.1:9', FAL_JWKS_URL: 'http://127.0.0.1:9/jwks' })
      .providers,
    () => Promise.reject(new Error('no network in this test')),
  );
  for (const model of served([...catalog.image, ...catalog.edit, ...catalog.face])) {
    const [first] = registry.candidates(model.routes);
    if (model.routes.some((r) => r.provider === 'fal' && r.mapping)) {
      assert.equal(first?.route.provider, 'fal', `${model.kind} ${model.id}`);
    }
  }
});

/** The input a catalog model's Replicate route sends for a request. */
function inputFor(
  kind: ImageModel['kind'],
  id: string,
  overrides: Partial<ImageRequest> = {},
): Record<string, unknown> {
  const model = catalog.find(kind, id);
  const [route] = model ? replicateRoutes(model) : [];
  assert.ok(route, `${kind} ${id} has a Replicate route`);
  const sent = mapped(route, sample(overrides));
  const validate = replicateValidatorOf(sent.endpoint);
  assert.ok(validate(sent.input), `${kind} ${id}: ${errorsText(validate)}`);
  return sent.input;
}

const refusal = (fn: () => unknown): void => {
  assert.throws(fn, (err) => err instanceof WorkError && err.kind === 'invalid_input' && !err.retryable);
};

test('FLUX.1 [dev] takes the ratio, clamped steps, its image and a LoRA by their Replicate names', () => {
  const input = inputFor('image', 'flux-1-dev', {
    aspectRatio: '16:9',
    size: dimensionsFor('16:9'),
    steps: 80,
    seed: 42,
    references: [IMAGE],
    lora: LORA,
  });
  assert.deepEqual(input, {
    prompt: 'a lighthouse at dusk',
    aspect_ratio: '16:9',
    num_inference_steps: 50,
    seed: 42,
    output_format: 'png',
    image: IMAGE,
    lora_weights: LORA.url,
  });
  assert.equal(inputFor('image', 'flux-1-schnell', { steps: 12 }).num_inference_steps, 4, 'schnell takes 1-4 steps');
  refusal(() => inputFor('image', 'flux-1-schnell', { lora: LORA }));
});

test('the FLUX pro models get a custom size within their bounds, or the nearest ratio they offer', () => {
  const pro = inputFor('image', 'flux-1.1-pro', { aspectRatio: '21:9', size: dimensionsFor('21:9') });
  assert.deepEqual([pro.aspect_ratio, pro.width, pro.height], ['custom', 1440, 608], '1568x672 scaled into 1440');
  const ultra = inputFor('image', 'flux-1.1-pro-ultra', { aspectRatio: '9:21', references: [IMAGE] });
  assert.deepEqual([ultra.aspect_ratio, ultra.image_prompt, ultra.raw], ['9:21', IMAGE, undefined]);
  assert.equal(inputFor('face', 'flux-1.1-pro-ultra-raw').raw, true, 'the route’s fixed params are sent');
});

test('an edit keeps its image’s proportions unless it is sized, and its images go where the model takes them', () => {
  const kontext = inputFor('edit', 'flux-kontext-pro', { size: null, references: [IMAGE] });
  assert.deepEqual([kontext.aspect_ratio, kontext.input_image], ['match_input_image', IMAGE]);
  refusal(() => inputFor('edit', 'flux-kontext-pro', { size: null, references: [IMAGE, IMAGE] }));
  const dev = inputFor('edit', 'flux-kontext-dev', {
    size: { width: 1360, height: 768 },
    aspectRatio: '1360:768', // as an edit asks it: its size
    steps: 2,
    references: [IMAGE],
  });
  assert.deepEqual([dev.aspect_ratio, dev.num_inference_steps], ['16:9', 4], 'kontext-dev takes 4-50 steps');
  const banana = inputFor('edit', 'nano-banana', { size: null, references: [IMAGE, IMAGE, IMAGE] });
  assert.deepEqual([banana.aspect_ratio, banana.image_input], ['match_input_image', [IMAGE, IMAGE, IMAGE]]);
  const seedream = inputFor('edit', 'seedream-4-edit', { size: dimensionsFor('16:9'), references: [IMAGE, IMAGE] });
  assert.deepEqual(
    [seedream.size, seedream.width, seedream.height, seedream.image_input],
    ['custom', 1808, 1024, [IMAGE, IMAGE]],
    '1360x768 scaled up to its 1024 minimum',
  );
});

test('models without a ratio list get their own size fields', () => {
  assert.equal(inputFor('image', 'recraft-v3', { aspectRatio: '16:9' }).size, '1820x1024');
  const sdxl = inputFor('image', 'sdxl', { size: dimensionsFor('4:3'), negativePrompt: 'blurry', steps: 30 });
  assert.deepEqual(
    [sdxl.width, sdxl.height, sdxl.negative_prompt, sdxl.num_inference_steps],
    [1168, 880, 'blurry', 30],
  );
  refusal(() => inputFor('image', 'sdxl', { lora: LORA }));
});

test('Ideogram, Imagen and Qwen-Image take what their schemas name, and refuse the rest', () => {
  const ideogram = inputFor('image', 'ideogram-v3', { seed: 4_294_967_295, references: [IMAGE, IMAGE] });
  assert.deepEqual([ideogram.seed, ideogram.style_reference_images], [2_147_483_647, [IMAGE, IMAGE]]);
  refusal(() => inputFor('image', 'ideogram-v3', { negativePrompt: 'blurry' }));
  const imagen = inputFor('image', 'imagen-4', { aspectRatio: '3:4' });
  assert.deepEqual(imagen, { prompt: 'a lighthouse at dusk', aspect_ratio: '3:4', output_format: 'png' });
  const qwen = inputFor('face', 'qwen-image', {
    negativePrompt: 'blurry',
    lora: { url: LORA.url, type: 'qwen-image' },
  });
  assert.deepEqual([qwen.negative_prompt, qwen.lora_weights], ['blurry', LORA.url]);
  assert.equal(inputFor('image', 'qwen-image', { references: [IMAGE] }).image, IMAGE);
  refusal(() => inputFor('image', 'qwen-image', { references: [IMAGE], lora: LORA }));
});

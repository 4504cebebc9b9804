// The model catalog data (src/catalog/models/*.json) and the loader's refusal of broken files.
// Needs no database: run alone with `node --test test/catalog.test.ts`.
import assert from 'node:assert/strict';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { IMAGE_ASPECT_RATIOS, type ImageModel, LORA_TYPES, loadModelCatalog } from '../src/catalog/models.ts';

const FILES = ['image-models.json', 'edit-models.json', 'face-models.json'] as const;
type CatalogFile = (typeof FILES)[number];
const SOURCE_DIR = new URL('../src/catalog/models/', import.meta.url);

describe('model catalog data', () => {
  const catalog = loadModelCatalog();
  const all = [...catalog.image, ...catalog.edit, ...catalog.face];

  test('has 43 image, 16 edit and at least 10 face models', () => {
    assert.equal(catalog.image.length, 43);
    assert.equal(catalog.edit.length, 16);
    assert.ok(catalog.face.length >= 10, `only ${catalog.face.length} face models`);
  });

  test('has exactly one default image model and one default edit model', () => {
    assert.deepEqual(
      catalog.image.filter((m) => m.default).map((m) => m.id),
      ['flux-1-dev'],
    );
    assert.deepEqual(
      catalog.edit.filter((m) => m.default).map((m) => m.id),
      ['flux-kontext-pro'],
    );
    assert.equal(catalog.defaults.image.id, 'flux-1-dev');
    assert.equal(catalog.defaults.edit.id, 'flux-kontext-pro');
  });

  test('every model kind matches its file and ids are unique within a kind', () => {
    for (const kind of ['image', 'edit', 'face'] as const) {
      const ids = catalog[kind].map((m) => m.id);
      assert.equal(new Set(ids).size, ids.length, `duplicate ${kind} ids`);
      for (const model of catalog[kind]) {
        assert.equal(model.kind, kind);
        assert.equal(catalog.find(kind, model.id), model);
      }
    }
  });

  test('LoRA models list valid types that together cover all six', () => {
    const union = new Set<string>();
    for (const model of all) {
      const { supports_lora, lora_types } = model.capabilities;
      if (!supports_lora) {
        assert.equal(lora_types, undefined, `${model.id} lists lora_types without supports_lora`);
        continue;
      }
      assert.ok(lora_types && lora_types.length > 0, `${model.id} supports LoRA but lists no types`);
      assert.equal(new Set(lora_types).size, lora_types.length, `${model.id} repeats a lora type`);
      for (const type of lora_types) {
        assert.ok((LORA_TYPES as readonly string[]).includes(type), `${model.id}: unknown lora type ${type}`);
        union.add(type);
      }
    }
    assert.deepEqual([...union].sort(), [...LORA_TYPES].sort());
    assert.ok(
      all.some((m) => m.capabilities.lora_types?.length === LORA_TYPES.length),
      'no model accepts every lora type',
    );
    const flux = catalog.find('image', 'flux-1-dev');
    assert.ok(flux?.capabilities.lora_types?.includes('flux-1-dev'));
  });

  test('image and edit models include some with and some without custom dimensions', () => {
    for (const kind of ['image', 'edit'] as const) {
      assert.ok(
        catalog[kind].some((m) => m.capabilities.custom_dimensions),
        `no ${kind} model with custom dimensions`,
      );
      assert.ok(
        catalog[kind].some((m) => !m.capabilities.custom_dimensions),
        `every ${kind} model has custom dimensions`,
      );
    }
  });

  test('settings, references and prices are consistent', () => {
    for (const model of all) {
      const { capabilities: c, settings: s } = model;
      assert.ok(s.aspect_ratios.includes('1:1'), `${model.id} lacks 1:1`);
      for (const ratio of s.aspect_ratios) {
        assert.ok((IMAGE_ASPECT_RATIOS as readonly string[]).includes(ratio), `${model.id}: ratio ${ratio}`);
      }
      assert.ok(s.min_dimension <= s.max_dimension, `${model.id}: min > max dimension`);
      assert.equal(c.image_to_image, c.max_reference_images > 0, `${model.id}: image_to_image vs references`);
      assert.ok(model.price.credits_per_image >= 1);
      assert.ok(model.estimated_seconds > 0);
    }
    for (const model of catalog.edit) {
      assert.ok(model.capabilities.image_to_image, `${model.id} edits without an image`);
      assert.ok(model.capabilities.max_reference_images >= 1);
    }
    for (const model of catalog.face) {
      assert.ok(model.price.credits_per_image >= 3 && model.price.credits_per_image <= 12, `${model.id} price`);
    }
  });
});

describe('model catalog loader', () => {
  let dir: string;
  const originals = new Map<CatalogFile, ImageModel[]>();

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'genmedia-catalog-'));
    for (const file of FILES) {
      originals.set(file, JSON.parse(await readFile(new URL(file, SOURCE_DIR), 'utf8')) as ImageModel[]);
    }
  });
  after(() => rm(dir, { recursive: true, force: true }));

  /** Copies the real catalog into `dir`, then overwrites `file` with `mutate` applied to a copy of its models. */
  async function writeCatalog(file: CatalogFile, mutate: (models: ImageModel[]) => unknown): Promise<URL> {
    for (const name of FILES) await copyFile(new URL(name, SOURCE_DIR), join(dir, name));
    const models = structuredClone(originals.get(file) as ImageModel[]);
    await writeFile(join(dir, file), JSON.stringify(mutate(models)));
    return new URL(`file://${dir}/`);
  }

  const expectRejection = async (
    file: CatalogFile,
    mutate: (models: ImageModel[]) => unknown,
    message: RegExp,
  ): Promise<void> => {
    const url = await writeCatalog(file, mutate);
    assert.throws(() => loadModelCatalog(url), message);
  };

  test('accepts an unchanged copy', async () => {
    const catalog = loadModelCatalog(await writeCatalog('image-models.json', (models) => models));
    assert.equal(catalog.image.length, 43);
  });

  test('rejects a wrong number of models', async () => {
    await expectRejection(
      'image-models.json',
      (models) =>
        models
          .filter((m) => !m.default)
          .slice(1)
          .concat(models.filter((m) => m.default)),
      /image-models\.json: has 42 models, expected 43/,
    );
    await expectRejection(
      'edit-models.json',
      (models) => [...models, { ...(models.at(-1) as ImageModel), id: 'extra-edit-model' }],
      /edit-models\.json: has 17 models, expected 16/,
    );
    await expectRejection('face-models.json', (models) => models.slice(0, 9), /face-models\.json: needs at least 10/);
  });

  test('rejects two defaults, or none', async () => {
    await expectRejection(
      'image-models.json',
      (models) => models.map((m, i) => (i < 2 ? { ...m, default: true } : m)),
      /image-models\.json: needs exactly one default model, has 2/,
    );
    await expectRejection(
      'edit-models.json',
      (models) => models.map(({ default: _, ...m }) => m),
      /edit-models\.json: needs exactly one default model, has 0/,
    );
  });

  test('rejects supports_lora without lora_types, and lora_types without supports_lora', async () => {
    await expectRejection(
      'image-models.json',
      (models) => {
        const model = models.find((m) => m.capabilities.supports_lora) as ImageModel;
        delete model.capabilities.lora_types;
        return models;
      },
      /lora_types must be listed exactly when supports_lora is true/,
    );
    await expectRejection(
      'face-models.json',
      (models) => {
        const model = models.find((m) => !m.capabilities.supports_lora) as ImageModel;
        model.capabilities.lora_types = ['sdxl'];
        return models;
      },
      /face-models\.json: .*lora_types must be listed exactly when supports_lora is true/,
    );
  });

  test('rejects an unknown lora type', async () => {
    await expectRejection(
      'image-models.json',
      (models) => {
        const model = models.find((m) => m.capabilities.supports_lora) as ImageModel;
        (model.capabilities.lora_types as string[]).push('sd-2.1');
        return models;
      },
      /image-models\.json: invalid at \/\d+\/capabilities\/lora_types\/\d+/,
    );
  });

  test('rejects an aspect ratio that is not allowed, and a model without 1:1', async () => {
    await expectRejection(
      'image-models.json',
      (models) => {
        ((models[0] as ImageModel).settings.aspect_ratios as string[]).push('7:5');
        return models;
      },
      /image-models\.json: invalid at \/0\/settings\/aspect_ratios\/\d+/,
    );
    await expectRejection(
      'edit-models.json',
      (models) => {
        const model = models[1] as ImageModel;
        model.settings.aspect_ratios = model.settings.aspect_ratios.filter((r) => r !== '1:1');
        if (model.settings.aspect_ratios.length === 0) model.settings.aspect_ratios = ['16:9'];
        return models;
      },
      /edit-models\.json: .* must accept the default 1:1/,
    );
  });

  test('rejects a model of the wrong kind, a duplicate id and a bad id', async () => {
    await expectRejection(
      'face-models.json',
      (models) => models.map((m, i) => (i === 0 ? { ...m, kind: 'image' } : m)),
      /face-models\.json: .* has kind image, expected face/,
    );
    await expectRejection(
      'image-models.json',
      (models) => models.map((m, i) => (i === 1 ? { ...m, id: (models[2] as ImageModel).id } : m)),
      /image-models\.json: model id .* is used twice/,
    );
    await expectRejection(
      'image-models.json',
      (models) => models.map((m, i) => (i === 3 ? { ...m, id: 'Bad_Id' } : m)),
      /image-models\.json: invalid at \/3\/id/,
    );
  });
});

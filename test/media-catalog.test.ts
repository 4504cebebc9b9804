// The media catalog data (src/catalog/models/*.json other than the image lists) and the loader's
// refusal of broken files. Needs no database: run alone with `node --test test/media-catalog.test.ts`.
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { defaultOf, loadMediaCatalog, VIDEO_ASPECT_RATIOS } from '../src/catalog/media-models.ts';

const SOURCE_DIR = new URL('../src/catalog/models/', import.meta.url);

const TOPAZ_MODELS = [
  'Proteus',
  'Artemis HQ',
  'Artemis MQ',
  'Artemis LQ',
  'Nyx',
  'Nyx Fast',
  'Nyx XL',
  'Nyx HF',
  'Gaia HQ',
  'Gaia CG',
  'Gaia 2',
  'Starlight Precise 1',
  'Starlight Precise 2',
  'Starlight Precise 2.5',
  'Starlight HQ',
  'Starlight Mini',
  'Starlight Sharp',
  'Starlight Fast 1',
  'Starlight Fast 2',
];

/** The first entry of a list, which must exist. */
function head<T>(list: T[]): T {
  const first = list[0];
  assert.ok(first !== undefined, 'empty list');
  return first;
}

const defaultIds = (list: Array<{ id: string; default?: boolean }>): string[] =>
  list.filter((m) => m.default).map((m) => m.id);

describe('media catalog data', () => {
  const catalog = loadMediaCatalog();

  test('has the counts the spec gives', () => {
    assert.deepEqual(
      {
        video: catalog.video.length,
        video_providers: catalog.video_providers.length,
        lipsync: catalog.lipsync.length,
        talking_head: catalog.talking_head.length,
        reference_video: catalog.reference_video.length,
        upscalers: catalog.upscalers.length,
        model_3d: catalog.model_3d.length,
        text: catalog.text.length,
        music: catalog.music.length,
      },
      {
        video: 29,
        video_providers: 5,
        lipsync: 5,
        talking_head: 12,
        reference_video: 3,
        upscalers: 2,
        model_3d: 7,
        text: 27,
        music: 5,
      },
    );
    assert.ok(catalog.talking_head_templates.length >= 1);
  });

  test('ids are unique within each list', () => {
    for (const [key, list] of Object.entries(catalog)) {
      const ids = (list as Array<{ id: string }>).map((m) => m.id);
      assert.equal(new Set(ids).size, ids.length, `duplicate id in ${key}`);
    }
  });

  test('has exactly one default in each model list', () => {
    const lists = {
      video: catalog.video,
      lipsync: catalog.lipsync,
      talking_head: catalog.talking_head,
      reference_video: catalog.reference_video,
      upscalers: catalog.upscalers,
      model_3d: catalog.model_3d,
      text: catalog.text,
      music: catalog.music,
    };
    for (const [key, list] of Object.entries(lists)) {
      assert.equal(defaultIds(list).length, 1, `${key} defaults: ${defaultIds(list).join(', ')}`);
    }
    assert.deepEqual(defaultIds(catalog.music), ['V4_5PLUS']);
    assert.equal(defaultOf(catalog.music).id, 'V4_5PLUS');
    assert.deepEqual(defaultIds(catalog.model_3d), ['meshy-6-preview']);
    assert.deepEqual(defaultIds(catalog.text), ['openai/gpt-4o-mini']);
  });

  test('video models have valid durations, ratios and one provider family', () => {
    for (const m of catalog.video) {
      const { durations, default_duration, aspect_ratios } = m.settings;
      for (const d of durations) assert.ok(Number.isInteger(d) && d >= 1 && d <= 15, `${m.id}: duration ${d}`);
      assert.ok(durations.includes(default_duration), `${m.id}: default_duration ${default_duration}`);
      assert.equal(new Set(durations).size, durations.length, `${m.id}: repeated duration`);
      for (const r of aspect_ratios) {
        assert.ok((VIDEO_ASPECT_RATIOS as readonly string[]).includes(r), `${m.id}: ratio ${r}`);
      }
      assert.ok(m.capabilities.text_to_video || m.capabilities.image_to_video, `${m.id} generates nothing`);
      assert.ok(m.price.credits_per_second > 0);
      assert.equal(m.routes[0]?.provider, 'fal');
    }
    assert.ok(
      catalog.video.filter((m) => m.settings.durations.includes(5)).length > catalog.video.length / 2,
      'most video models should accept the default 5 s',
    );
    assert.ok(
      catalog.video.some((m) => m.settings.aspect_ratios.length < VIDEO_ASPECT_RATIOS.length),
      'some model should not support every ratio',
    );
    const family = catalog.video.filter((m) => m.provider_family);
    assert.ok(family.length >= 2 && family.length <= 3, `provider family has ${family.length} models`);
    for (const m of family) assert.equal(m.price.credits_per_second, 90, `${m.id}: family price`);
    const video = defaultOf(catalog.video);
    assert.ok(video.capabilities.text_to_video && !video.provider_family, 'default video model');
  });

  test('the provider family has five providers', () => {
    const ids = catalog.video_providers.map((p) => p.id);
    assert.equal(new Set(ids).size, 5);
    assert.ok(catalog.video_providers.some((p) => p.supports_watermark_removal));
  });

  test('talking-head models: four sheet-based, two allowing 30 s, a non-sheet default', () => {
    const sheet = catalog.talking_head.filter((m) => m.sheet_based);
    assert.equal(sheet.length, 4);
    const long = catalog.talking_head.filter((m) => Math.max(...m.settings.durations) === 30);
    assert.equal(long.length, 2);
    for (const m of catalog.talking_head) {
      const max = Math.max(...m.settings.durations);
      assert.ok([10, 15, 30].includes(max), `${m.id}: max duration ${max}`);
      assert.ok(m.settings.durations.includes(m.settings.default_duration), `${m.id}: default_duration`);
      assert.ok(m.settings.resolutions.includes(m.settings.default_resolution), `${m.id}: default_resolution`);
    }
    const scriptOnly = catalog.talking_head.filter((m) => !m.needs_audio).length;
    assert.ok(scriptOnly >= 1 && scriptOnly <= 2, `${scriptOnly} script-only models`);
    assert.equal(defaultOf(catalog.talking_head).sheet_based, false);
  });

  test('reference-to-video models: the per-segment default first, then two with native audio', () => {
    const [first, ...others] = catalog.reference_video;
    assert.ok(first?.default && first.per_segment_shots && !first.native_audio);
    assert.equal(first.settings.min_duration, 5);
    assert.equal(first.settings.max_duration, 15);
    assert.deepEqual(first.settings.aspect_ratios, ['16:9', '9:16', '1:1']);
    assert.deepEqual(first.settings.resolutions, []);
    for (const m of others) {
      assert.ok(!m.per_segment_shots && m.native_audio, m.id);
      assert.equal(m.settings.min_duration, 3);
      assert.equal(m.settings.max_duration, 15);
      assert.deepEqual([...m.settings.aspect_ratios].sort(), [...VIDEO_ASPECT_RATIOS].sort());
      assert.equal(m.settings.resolutions.length, 2);
    }
  });

  test('the first upscaler offers the 19 Topaz models, defaulting to Starlight Precise 2.5', () => {
    const [a, b] = catalog.upscalers;
    assert.ok(a && b);
    assert.equal(a.default, true);
    assert.equal(a.routes[0]?.endpoint, 'fal-ai/topaz/upscale/video');
    assert.equal(a.video_models.length, 19);
    assert.deepEqual(a.video_models.map((v) => v.id).sort(), [...TOPAZ_MODELS].sort());
    assert.equal(a.default_video_model, 'Starlight Precise 2.5');
    assert.equal(a.video_models[0]?.id, a.default_video_model);
    for (const v of a.video_models) assert.ok(v.description.length > 0, `${v.id} lacks a description`);
    assert.deepEqual(b.video_models, []);
    assert.equal(b.default_video_model, undefined);
    for (const u of catalog.upscalers) {
      assert.ok(Object.keys(u.credits_per_second_by_tier).length > 0);
      assert.ok(u.credits_per_output_megapixel > 0);
    }
  });

  test('3D, text and music models are consistent', () => {
    const meshy = defaultOf(catalog.model_3d);
    assert.ok(meshy.capabilities.text_to_3d && meshy.capabilities.image_to_3d);
    for (const m of catalog.model_3d) assert.ok(m.price.preview <= m.price.full, `${m.id}: preview > full`);
    for (const m of catalog.text) {
      assert.equal(m.routes[0]?.provider, 'openai-compatible');
      assert.equal(m.routes[0]?.endpoint, m.id);
      assert.ok(m.max_output_tokens <= m.context_window, `${m.id}: output > context`);
    }
    assert.deepEqual(
      catalog.music.map((m) => m.id),
      ['V4', 'V4_5', 'V4_5PLUS', 'V4_5ALL', 'V5'],
    );
    for (const m of catalog.music) {
      assert.deepEqual(m.routes, [{ provider: 'suno', endpoint: m.id, mapping: m.id }]);
      assert.equal(m.max_lyrics_chars, m.id === 'V4' ? 3000 : 5000);
    }
  });

  test('talking-head templates each have valid, unique angles', () => {
    for (const t of catalog.talking_head_templates) {
      assert.ok(t.angles.length >= 2 && t.angles.length <= 5, `${t.id}: ${t.angles.length} angles`);
      const ids = t.angles.map((a) => a.id);
      assert.equal(new Set(ids).size, ids.length, `${t.id}: duplicate angle`);
    }
  });
});

describe('media catalog loader', () => {
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'genmedia-media-catalog-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  /** Copies the real catalog into a fresh folder, then rewrites `file` with `mutate` applied to its entries. */
  async function corrupt(file: string, mutate: (list: Array<Record<string, unknown>>) => unknown): Promise<URL> {
    const target = await mkdtemp(join(dir, 'copy-'));
    await cp(SOURCE_DIR, target, { recursive: true });
    const list = JSON.parse(await readFile(join(target, file), 'utf8')) as Array<Record<string, unknown>>;
    await writeFile(join(target, file), JSON.stringify(mutate(list)));
    return pathToFileURL(`${target}/`);
  }

  test('accepts an unchanged copy', async () => {
    const catalog = loadMediaCatalog(await corrupt('video-models.json', (list) => list));
    assert.equal(catalog.video.length, 29);
  });

  test('rejects a wrong number of entries', async () => {
    const url = await corrupt('video-models.json', (list) => list.filter((m) => !m.default).slice(1));
    assert.throws(() => loadMediaCatalog(url), /video-models\.json: has 27 entries, expected 29/);
    const more = await corrupt('text-models.json', (list) => [...list, { ...list.at(-1), id: 'extra/model' }]);
    assert.throws(() => loadMediaCatalog(more), /text-models\.json: has 28 entries, expected 27/);
  });

  test('rejects a third talking-head model allowing 30 s', async () => {
    const url = await corrupt('talking-head-models.json', (list) => {
      const short = list.find((m) => {
        const { durations } = m.settings as { durations: number[] };
        return Math.max(...durations) < 30;
      });
      assert.ok(short);
      (short.settings as { durations: number[] }).durations.push(30);
      return list;
    });
    assert.throws(() => loadMediaCatalog(url), /exactly two talking-head models allow 30 s/);
  });

  test('rejects a fifth sheet-based talking-head model', async () => {
    const url = await corrupt('talking-head-models.json', (list) =>
      list.map((m) => (m.default ? { ...m, sheet_based: true } : m)),
    );
    assert.throws(() => loadMediaCatalog(url), /exactly four talking-head models are sheet-based/);
  });

  test('rejects a duplicate id', async () => {
    const url = await corrupt('lipsync-models.json', (list) =>
      list.map((m, i) => (i === 1 ? { ...m, id: list[0]?.id } : m)),
    );
    assert.throws(() => loadMediaCatalog(url), /lipsync-models\.json: id .+ is used twice/);
  });

  test('rejects two defaults', async () => {
    const url = await corrupt('music-models.json', (list) => list.map((m) => ({ ...m, default: true })));
    assert.throws(() => loadMediaCatalog(url), /music: more than one default/);
  });

  test('rejects a duration outside 1-15 and a default duration not offered', async () => {
    const long = await corrupt('video-models.json', (list) => {
      (head(list).settings as { durations: number[] }).durations.push(20);
      return list;
    });
    assert.throws(() => loadMediaCatalog(long), /video-models\.json: invalid at \/0\/settings\/durations\/\d+/);
    const missing = await corrupt('video-models.json', (list) => {
      (head(list).settings as { default_duration: number }).default_duration = 7;
      return list;
    });
    assert.throws(() => loadMediaCatalog(missing), /default_duration not in durations/);
  });

  test('rejects a Topaz model list that is not 19 long or lacks the default', async () => {
    const short = await corrupt('upscalers.json', (list) => {
      (head(list).video_models as unknown[]).pop();
      return list;
    });
    assert.throws(() => loadMediaCatalog(short), /the first upscaler has 19 video models/);
    const unnamed = await corrupt('upscalers.json', (list) =>
      list.map((u, i) => (i === 0 ? { ...u, default_video_model: 'Starlight Ultra' } : u)),
    );
    assert.throws(() => loadMediaCatalog(unnamed), /the first upscaler names its default video model/);
  });

  test('rejects a music default other than V4_5PLUS', async () => {
    const url = await corrupt('music-models.json', (list) =>
      list.map(({ default: _, ...m }) => (m.id === 'V5' ? { ...m, default: true } : m)),
    );
    assert.throws(() => loadMediaCatalog(url), /the default music model is V4_5PLUS/);
  });
});

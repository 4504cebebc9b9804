// Every fal route of the video, lip-sync, upscaler and 3D catalogs, and of the models operations
// name in code (endpoint-routes.json: motion control, the LoRA video model, text to speech), checked against the
// input schema fal publishes for its endpoint (test/fixtures/fal/input-schemas.json, from fal's own
// client; see its `source`): for every duration, aspect ratio and option a model offers, from text
// and from a first frame (or image) where it has an image endpoint, the input we would send must be
// valid: no unknown field, every required one, values from the endpoint's lists.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadMediaCatalog } from '../src/catalog/media-models.ts';
import type { ModelRoute } from '../src/catalog/models.ts';
import { FIXED_ROUTES } from '../src/catalog/routes.ts';
import { EMOTION_ALIASES, PRESET_VOICES, TTS_EMOTIONS, TTS_FORMATS } from '../src/catalog/voices.ts';
import { WorkError } from '../src/lib/errors.ts';
import { probeMedia } from '../src/lib/ffmpeg.ts';
import { createFalProvider } from '../src/providers/fal/client.ts';
import { TOPAZ_MODELS } from '../src/providers/fal/mappings/video-edits.ts';
import { jwksFromUrl } from '../src/providers/fal/webhook.ts';
import type { PickedRoute } from '../src/providers/registry.ts';
import type { ProviderError, VendorRequest } from '../src/providers/types.ts';
import { startFakeFal } from './fakes/fal.ts';
import { errorsText, falFixture, falValidatorOf, offlineRegistry } from './vendor-schemas.ts';

const registry = offlineRegistry({ replicate: false });

const media = loadMediaCatalog();
const IMAGE = 'https://cdn.example.com/in.png';
const VIDEO = 'https://cdn.example.com/in.mp4';
const AUDIO = 'https://cdn.example.com/in.mp3';
const LORA = 'https://cdn.example.com/motion.safetensors';

const MOTION_ROUTES = FIXED_ROUTES['kling-2.6-motion-control'] ?? [];
const LORA_ROUTES = FIXED_ROUTES['wan-2.2-lora'] ?? [];
const TTS_ROUTES = FIXED_ROUTES.tts ?? [];

type VideoRequest = Extract<VendorRequest, { kind: 'video' }>;
type Model3dRequest = Extract<VendorRequest, { kind: 'model3d' }>;
type SpeechRequest = Extract<VendorRequest, { kind: 'speech' }>;

/** What a model's catalog entry lets a user ask for, that its fal route must take. */
interface Case {
  /** The model and what varies; a refused case is recorded without its duration and ratio. */
  label: string;
  routes: readonly ModelRoute[];
  request: VendorRequest;
}

function video(overrides: Partial<VideoRequest> = {}): VideoRequest {
  return {
    kind: 'video',
    prompt: 'a lighthouse at dusk, waves breaking',
    negativePrompt: null,
    aspectRatio: '16:9',
    durationSeconds: 5,
    resolution: '720p',
    fps: 24,
    seed: 7,
    firstFrame: null,
    lastFrame: null,
    audio: false,
    loras: [],
    ...overrides,
  };
}

function model3d(overrides: Partial<Model3dRequest> = {}): Model3dRequest {
  return {
    kind: 'model3d',
    prompt: 'a brass pocket watch',
    imageUrl: null,
    mode: 'full',
    artStyle: 'realistic',
    topology: 'triangle',
    targetPolycount: 30_000,
    symmetry: 'auto',
    tPose: false,
    pbr: false,
    promptExpansion: false,
    seed: 7,
    ...overrides,
  };
}

function speech(overrides: Partial<SpeechRequest> = {}): SpeechRequest {
  return {
    kind: 'speech',
    text: 'The keeper counts the ships that pass the light.',
    voices: { fal: 'Wise_Woman' },
    format: 'mp3',
    speed: 1,
    language: 'en',
    emotion: 'neutral',
    seed: null,
    ...overrides,
  };
}

function videoCases(): Case[] {
  const out: Case[] = [];
  for (const model of media.video) {
    const { settings, capabilities } = model;
    // The provider family's quality picks its resolution.
    const resolutions = model.provider_family ? ['720p', '1080p'] : [settings.resolution];
    for (const resolution of resolutions) {
      for (const duration of settings.durations) {
        for (const ratio of settings.aspect_ratios) {
          const request = video({
            aspectRatio: ratio,
            durationSeconds: duration,
            resolution,
            fps: settings.fps,
            audio: capabilities.native_audio,
          });
          const label = `video ${model.id} ${duration}s ${ratio}`;
          if (capabilities.text_to_video) out.push({ label, routes: model.routes, request });
          if (capabilities.image_to_video) {
            out.push({ label: `${label} +frame`, routes: model.routes, request: { ...request, firstFrame: IMAGE } });
          }
        }
      }
    }
  }
  // The LoRA video endpoint: its own settings as given, LoRAs on either transformer or both.
  for (const resolution of ['480p', '580p', '720p']) {
    for (const ratio of ['16:9', '9:16', '1:1']) {
      const request = video({
        aspectRatio: ratio,
        durationSeconds: 81 / 16,
        resolution,
        fps: 16,
        seed: 3,
        loras: [
          { url: LORA, scale: 1, transformer: 'high' },
          { url: LORA, scale: 0.8, transformer: 'low' },
          { url: LORA, scale: 0.5, transformer: 'both' },
        ],
        frames: 81,
        steps: 27,
        guidanceScale: 3.5,
        promptExpansion: false,
      });
      out.push({ label: `video wan-2.2-lora ${resolution} ${ratio}`, routes: LORA_ROUTES, request });
      out.push({
        label: `video wan-2.2-lora ${resolution} ${ratio} +frame`,
        routes: LORA_ROUTES,
        request: { ...request, firstFrame: IMAGE },
      });
    }
  }
  return out;
}

function otherCases(): Case[] {
  const out: Case[] = [];
  for (const model of media.lipsync) {
    out.push({
      label: `lipsync ${model.id}`,
      routes: model.routes,
      request: { kind: 'lipsync', videoUrl: VIDEO, audioUrl: AUDIO },
    });
  }
  for (const orientation of ['image', 'video'] as const) {
    for (const prompt of [null, 'she dances in the rain']) {
      out.push({
        label: `motion ${orientation}${prompt ? ' +prompt' : ''}`,
        routes: MOTION_ROUTES,
        request: { kind: 'motion', imageUrl: IMAGE, videoUrl: VIDEO, orientation, prompt, element: null },
      });
    }
  }
  for (const model of media.upscalers) {
    const models = model.video_models.length > 0 ? model.video_models.map((m) => m.id) : [null];
    for (const videoModel of models) {
      for (const factor of [2, 4]) {
        for (const h264 of [false, true]) {
          for (const targetFps of model.id === 'topaz' ? [null, 60] : [null]) {
            out.push({
              label: `upscale ${model.id} ${videoModel ?? ''} x${factor}`,
              routes: model.routes,
              request: {
                kind: 'upscale',
                videoUrl: VIDEO,
                factor,
                targetFps,
                model: videoModel,
                h264,
                tuning: model.id === 'topaz' ? { compression: 0.2, noise: 0.1, halo: 0, grain: 0.05 } : {},
              },
            });
          }
        }
      }
    }
  }
  // Each 3D option a user may set, one at a time from the defaults, from text and from an image.
  const options: Array<[string, Partial<Model3dRequest>]> = [
    ['defaults', {}],
    ['mode=preview', { mode: 'preview' }],
    ['topology=quad', { topology: 'quad' }],
    ['polycount=10000', { targetPolycount: 10_000 }],
    ['symmetry=on', { symmetry: 'on' }],
    ['symmetry=off', { symmetry: 'off' }],
    ['t-pose', { tPose: true }],
    ['art=sculpture', { artStyle: 'sculpture' }],
    ['prompt-expansion', { promptExpansion: true }],
    ['pbr', { pbr: true }],
  ];
  for (const model of media.model_3d) {
    for (const [option, overrides] of options) {
      if (overrides.pbr && !model.capabilities.pbr) continue;
      const label = `3d ${model.id} ${option}`;
      if (model.capabilities.text_to_3d) out.push({ label, routes: model.routes, request: model3d(overrides) });
      if (model.capabilities.image_to_3d) {
        out.push({
          label: `${label} +image`,
          routes: model.routes,
          request: model3d({ ...overrides, imageUrl: IMAGE }),
        });
      }
    }
  }
  // Text to speech: every format and emotion, and languages MiniMax lists or not ('eo', 'sw').
  for (const format of TTS_FORMATS) {
    for (const emotion of [...TTS_EMOTIONS, 'cheerful', 'sarcastic']) {
      for (const language of ['en', 'zh', 'ja', 'nn', 'eo']) {
        out.push({
          label: `speech ${format} ${emotion} ${language}`,
          routes: TTS_ROUTES,
          request: speech({ format, emotion, language }),
        });
      }
    }
  }
  for (const voice of PRESET_VOICES) {
    for (const [language, speed] of [
      ['sw', 0.6],
      ['pt', 1.5],
    ] as const) {
      out.push({
        label: `speech ${voice.id} ${language} x${speed}`,
        routes: TTS_ROUTES,
        request: speech({ voices: { fal: voice.id }, language, speed, seed: 7 }),
      });
    }
  }
  return out;
}

// Routes of these catalogs that name no mapping, and why. Adding to this list is a decision.
const UNMAPPED: Record<string, string> = {
  // Not among the endpoints of fal-js 381105e (fal dropped them from its client after 9830f25).
  'video veo-2': 'fal-ai/veo2',
  'video veo-3': 'fal-ai/veo3',
  'video veo-3-fast': 'fal-ai/veo3/fast',
  'video sora-2': 'fal-ai/sora-2/text-to-video',
  'video sora-2-pro': 'fal-ai/sora-2/text-to-video/pro',
  'video seedance-1.0-lite': 'fal-ai/bytedance/seedance/v1/lite/text-to-video',
  'video mochi-1': 'fal-ai/mochi-v1',
  'model_3d hunyuan3d-2.1': 'fal-ai/hunyuan3d-v21',
  // Never among them: its image-to-3D endpoint serves it from images only.
  'model_3d tripo-2.5': 'tripo3d/tripo/v2.5/text-to-3d',
};

// What a model's entry offers and its fal endpoint cannot take: refused (invalid_input, refunded),
// never sent without it. Adding to this list is a decision.
const KNOWN_GAPS = [
  // Luma's Ray 2 makes no square video (its ratios: 16:9, 9:16, 4:3, 3:4, 21:9, 9:21).
  'video luma-ray-2 1:1',
  'video luma-ray-2 1:1 +frame',
  'video luma-ray-2-flash 1:1',
  'video luma-ray-2-flash 1:1 +frame',
  // Meshy 6 has no art styles; its image-to-3D no prompt expansion.
  '3d meshy-6-preview art=sculpture',
  '3d meshy-6-preview art=sculpture +image',
  '3d meshy-6-preview prompt-expansion +image',
  // Tripo 2.5 has no symmetry, pose, style or prompt settings.
  '3d tripo-2.5 art=sculpture +image',
  '3d tripo-2.5 prompt-expansion +image',
  '3d tripo-2.5 symmetry=off +image',
  '3d tripo-2.5 symmetry=on +image',
  '3d tripo-2.5 t-pose +image',
  // Rodin, TRELLIS and TripoSR take none of Meshy's mesh settings (Rodin: PBR and a T/A pose).
  ...['rodin-gen-1', 'trellis', 'triposr'].flatMap((id) => {
    const sources = id === 'rodin-gen-1' ? ['', ' +image'] : [' +image'];
    const refused = ['art=sculpture', 'polycount=10000', 'prompt-expansion', 'symmetry=off', 'symmetry=on'];
    refused.push('topology=quad');
    if (id !== 'rodin-gen-1') refused.push('t-pose');
    return refused.flatMap((option) => sources.map((source) => `3d ${id} ${option}${source}`));
  }),
].sort();

/** The input a picked route sends for a request, or the refusal's label. */
function mapped(picked: PickedRoute, request: VendorRequest): Record<string, unknown> | ProviderError {
  try {
    return picked.map(request);
  } catch (err) {
    assert.ok(err instanceof WorkError && err.kind === 'invalid_input', String(err));
    return err;
  }
}

test('every route of these catalogs names an endpoint fal publishes and a mapping we have, or is listed', () => {
  const lists: Array<[string, ReadonlyArray<{ id: string; routes: readonly ModelRoute[] }>]> = [
    ['video', media.video],
    ['lipsync', media.lipsync],
    ['upscalers', media.upscalers],
    ['model_3d', media.model_3d],
    ['endpoint', Object.entries(FIXED_ROUTES).map(([id, routes]) => ({ id, routes }))],
  ];
  const unmapped: Record<string, string> = {};
  let routes = 0;
  for (const [kind, list] of lists) {
    for (const model of list) {
      for (const route of model.routes.filter((r) => r.provider === 'fal')) {
        if (route.mapping) {
          falValidatorOf(route.endpoint);
          assert.equal(registry.candidates([route]).length, 1, `${route.endpoint}: mapping ${route.mapping} exists`);
        }
        if (route.image_endpoint) {
          assert.ok(route.image_mapping, `${model.id}: an image endpoint needs its mapping`);
          falValidatorOf(route.image_endpoint);
          const images = registry.candidates([route], video({ firstFrame: IMAGE }));
          assert.equal(images.length, 1, `${route.image_endpoint}: mapping ${route.image_mapping} exists`);
        }
        if (route.mapping || route.image_mapping) routes += 1;
        if (!route.mapping) unmapped[`${kind} ${model.id}`] = route.endpoint;
      }
    }
  }
  assert.deepEqual(unmapped, UNMAPPED);
  for (const endpoint of Object.values(UNMAPPED)) assert.equal(falFixture.endpoints[endpoint], undefined, endpoint);
  assert.ok(routes >= 36, `${routes} mapped fal routes`);
  assert.match(falFixture.source.repository, /fal-ai\/fal-js/);
});

test('every request a model allows maps to a valid input of its fal endpoint', () => {
  const gaps = new Set<string>();
  let checked = 0;
  for (const c of [...videoCases(), ...otherCases()]) {
    const picked = registry.candidates(c.routes, c.request);
    for (const route of picked) {
      const input = mapped(route, c.request);
      if (input instanceof WorkError) {
        gaps.add(c.label.replace(/ \d+(\.\d+)?s /, ' '));
        continue;
      }
      const validate = falValidatorOf(route.route.endpoint);
      assert.ok(
        validate(input),
        `${c.label} → ${route.route.endpoint}: ${errorsText(validate)}\n${JSON.stringify(input)}`,
      );
      if ('prompt' in c.request && c.request.prompt && input.prompt !== undefined) {
        assert.equal(input.prompt, c.request.prompt);
      }
      checked += 1;
    }
  }
  assert.ok(checked > 500, `${checked} inputs checked`);
  assert.deepEqual([...gaps].sort(), KNOWN_GAPS);
});

/** The input the first configured route of `routes` sends for `request`. */
function inputOf(routes: readonly ModelRoute[] | undefined, request: VendorRequest) {
  const [picked] = registry.candidates(routes ?? [], request);
  assert.ok(picked, 'a configured route');
  const input = picked.map(request);
  const validate = falValidatorOf(picked.route.endpoint);
  assert.ok(validate(input), `${picked.route.endpoint}: ${errorsText(validate)}`);
  return { endpoint: picked.route.endpoint, input };
}

function refusal(routes: readonly ModelRoute[] | undefined, request: VendorRequest): string {
  const [picked] = registry.candidates(routes ?? [], request);
  assert.ok(picked, 'a configured route');
  const result = mapped(picked, request);
  assert.ok(result instanceof WorkError, `refused: ${JSON.stringify(result)}`);
  return result.message;
}

const routesOf = (list: ReadonlyArray<{ id: string; routes: ModelRoute[] }>, id: string) =>
  list.find((m) => m.id === id)?.routes;

test('video: each endpoint gets the length, ratio, resolution and frames as it spells them', () => {
  const veo = inputOf(
    routesOf(media.video, 'veo-3.1'),
    video({ durationSeconds: 8, resolution: '1080p', audio: true }),
  );
  assert.equal(veo.endpoint, 'fal-ai/veo3.1');
  assert.deepEqual(
    [veo.input.duration, veo.input.resolution, veo.input.generate_audio, veo.input.aspect_ratio],
    ['8s', '1080p', true, '16:9'],
  );
  const veoFrame = inputOf(routesOf(media.video, 'veo-3.1'), video({ durationSeconds: 4, firstFrame: IMAGE }));
  assert.equal(veoFrame.endpoint, 'fal-ai/veo3.1/image-to-video');
  assert.equal(veoFrame.input.image_url, IMAGE);

  const kling = inputOf(routesOf(media.video, 'kling-2.1-master'), video({ durationSeconds: 10, aspectRatio: '9:16' }));
  assert.deepEqual([kling.input.duration, kling.input.aspect_ratio], ['10', '9:16']);
  const kling26 = inputOf(routesOf(media.video, 'kling-2.6-pro'), video({ firstFrame: IMAGE, audio: true }));
  assert.equal(kling26.endpoint, 'fal-ai/kling-video/v2.6/pro/image-to-video');
  assert.deepEqual([kling26.input.start_image_url, kling26.input.generate_audio], [IMAGE, true]);
  assert.equal(kling26.input.aspect_ratio, undefined, 'the first frame sets the shape');
  assert.match(
    refusal(routesOf(media.video, 'kling-2.0-master'), video({ firstFrame: IMAGE, lastFrame: IMAGE })),
    /no last frame/,
  );
  assert.match(refusal(routesOf(media.video, 'kling-1.6-pro'), video({ audio: true })), /silent/);
  assert.match(refusal(routesOf(media.video, 'kling-1.6-pro'), video({ durationSeconds: 6 })), /5, 10 s/);

  const pika = inputOf(routesOf(media.video, 'pika-2.2'), video({ durationSeconds: 10, resolution: '1080p' }));
  assert.equal(pika.input.duration, 10, 'Pika takes a number');
  const hailuo = inputOf(routesOf(media.video, 'hailuo-02'), video({ durationSeconds: 6, firstFrame: IMAGE }));
  assert.equal(hailuo.input.resolution, '768P', 'the nearest tier Hailuo lists');
  assert.match(refusal(routesOf(media.video, 'luma-ray-2'), video({ aspectRatio: '1:1' })), /16:9, 9:16, 4:3, 3:4/);

  const wan21 = inputOf(routesOf(media.video, 'wan-2.1'), video({ fps: 16 }));
  assert.deepEqual([wan21.input.num_frames, wan21.input.frames_per_second], [81, 16]);
  const ltx = inputOf(routesOf(media.video, 'ltx-video-13b'), video({ fps: 30 }));
  assert.deepEqual([ltx.input.num_frames, ltx.input.frame_rate], [153, 30], '8k+1 frames covering 5 s at 30 fps');
  const cog = inputOf(routesOf(media.video, 'cogvideox-5b'), video({ durationSeconds: 6 }));
  assert.equal(cog.input.video_size, 'landscape_16_9');
  assert.match(refusal(routesOf(media.video, 'wan-2.5'), video({ audio: false })), /always makes a soundtrack/);
  assert.match(
    refusal(routesOf(media.video, 'pixverse-5'), video({ loras: [{ url: LORA, scale: 1, transformer: 'high' }] })),
    /no LoRA/,
  );
  assert.match(refusal(routesOf(media.video, 'vidu-q1'), video({ negativePrompt: 'blur' })), /no negative prompt/);
});

test('the LoRA video endpoint gets its LoRAs per transformer and its sampling settings as given', () => {
  const request = video({
    aspectRatio: '9:16',
    durationSeconds: 121 / 24,
    resolution: '580p',
    fps: 24,
    seed: 11,
    negativePrompt: 'blurry',
    loras: [
      { url: LORA, scale: 1.2, transformer: 'high' },
      { url: `${LORA}?v=2`, scale: 0.6, transformer: 'low' },
      { url: `${LORA}?v=3`, scale: 1, transformer: 'both' },
    ],
    frames: 121,
    steps: 30,
    guidanceScale: 4.5,
    promptExpansion: true,
  });
  const t2v = inputOf(LORA_ROUTES, request);
  assert.equal(t2v.endpoint, 'fal-ai/wan/v2.2-a14b/text-to-video/lora');
  assert.deepEqual(t2v.input.loras, [
    { path: LORA, scale: 1.2, transformer: 'high' },
    { path: `${LORA}?v=2`, scale: 0.6, transformer: 'low' },
    { path: `${LORA}?v=3`, scale: 1, transformer: 'both' },
  ]);
  assert.deepEqual(
    {
      num_frames: t2v.input.num_frames,
      frames_per_second: t2v.input.frames_per_second,
      num_inference_steps: t2v.input.num_inference_steps,
      guidance_scale: t2v.input.guidance_scale,
      enable_prompt_expansion: t2v.input.enable_prompt_expansion,
      resolution: t2v.input.resolution,
      aspect_ratio: t2v.input.aspect_ratio,
      negative_prompt: t2v.input.negative_prompt,
      seed: t2v.input.seed,
    },
    {
      num_frames: 121,
      frames_per_second: 24,
      num_inference_steps: 30,
      guidance_scale: 4.5,
      enable_prompt_expansion: true,
      resolution: '580p',
      aspect_ratio: '9:16',
      negative_prompt: 'blurry',
      seed: 11,
    },
  );
  const i2v = inputOf(LORA_ROUTES, { ...request, firstFrame: IMAGE });
  assert.equal(i2v.endpoint, 'fal-ai/wan/v2.2-a14b/image-to-video/lora');
  assert.equal(i2v.input.image_url, IMAGE);
  assert.match(refusal(LORA_ROUTES, { ...request, frames: 200 }), /17-161 frames/);
  // The plain Wan 2.2 model takes no LoRA on its text endpoint, and its image endpoint is the LoRA one.
  assert.match(
    refusal(routesOf(media.video, 'wan-2.2'), video({ loras: [{ url: LORA, scale: 1, transformer: 'high' }] })),
    /no LoRA/,
  );
  const plain = inputOf(routesOf(media.video, 'wan-2.2'), video({ fps: 16, firstFrame: IMAGE }));
  assert.equal(plain.endpoint, 'fal-ai/wan/v2.2-a14b/image-to-video/lora');
  assert.equal(plain.input.loras, undefined);
});

test('lip sync, motion control and upscaling send their fields by fal’s names', () => {
  for (const model of media.lipsync) {
    assert.deepEqual(inputOf(model.routes, { kind: 'lipsync', videoUrl: VIDEO, audioUrl: AUDIO }).input, {
      video_url: VIDEO,
      audio_url: AUDIO,
    });
  }
  const motionRequest = {
    kind: 'motion',
    imageUrl: IMAGE,
    videoUrl: VIDEO,
    orientation: 'image',
    prompt: null,
    element: null,
  } as const;
  const motion = inputOf(MOTION_ROUTES, motionRequest);
  assert.deepEqual(motion.input, { image_url: IMAGE, video_url: VIDEO, character_orientation: 'image' });
  assert.match(
    refusal(MOTION_ROUTES, { ...motionRequest, element: { frontal: IMAGE, references: [] } }),
    /no face element/,
    'a face element is refused, not dropped',
  );

  const topazRoutes = routesOf(media.upscalers, 'topaz');
  const upscale = {
    kind: 'upscale',
    videoUrl: VIDEO,
    factor: 4,
    targetFps: 60,
    model: 'Proteus',
    h264: true,
    tuning: {},
  } as const;
  const topaz = inputOf(topazRoutes, upscale);
  assert.deepEqual(topaz.input, {
    video_url: VIDEO,
    upscale_factor: 4,
    H264_output: true,
    model: 'Proteus',
    target_fps: 60,
  });
  assert.equal('h264_output' in topaz.input, false, 'fal spells it H264_output');
  const plain = inputOf(topazRoutes, { ...upscale, targetFps: null, h264: false }).input;
  assert.deepEqual([plain.H264_output, 'target_fps' in plain], [false, false]);
  for (const m of media.upscalers.find((u) => u.id === 'topaz')?.video_models ?? []) {
    assert.ok(TOPAZ_MODELS.includes(m.id), `${m.id} is a Topaz model fal lists`);
  }
  assert.match(refusal(topazRoutes, { ...upscale, model: 'Nyx Ultra' }), /no model Nyx Ultra/);
  assert.match(refusal(topazRoutes, { ...upscale, targetFps: 240 }), /at most 120/);
  const tuned = inputOf(topazRoutes, { ...upscale, tuning: { compression: 0.3, recover_detail: 0.5 } }).input;
  assert.deepEqual([tuned.compression, tuned.recover_detail], [0.3, 0.5], 'the tuning reaches Topaz');
  assert.match(refusal(topazRoutes, { ...upscale, tuning: { softness: 0.2 } }), /no softness/);

  const seedvrRoutes = routesOf(media.upscalers, 'seedvr2');
  const seedvr = inputOf(seedvrRoutes, { ...upscale, model: null, targetFps: null });
  assert.deepEqual(seedvr.input, {
    video_url: VIDEO,
    upscale_mode: 'factor',
    upscale_factor: 4,
    output_format: 'X264 (.mp4)',
  });
  assert.match(refusal(seedvrRoutes, { ...upscale, model: null }), /does not interpolate/);
});

test('3D: topology, polycount, symmetry, pose and PBR reach the endpoints that take them', () => {
  const meshyRoutes = routesOf(media.model_3d, 'meshy-6-preview');
  const asked = { topology: 'quad', targetPolycount: 12_000, symmetry: 'on', tPose: true, pbr: true } as const;
  const meshy = inputOf(meshyRoutes, model3d({ ...asked, mode: 'preview' }));
  assert.equal(meshy.endpoint, 'fal-ai/meshy/v6-preview/text-to-3d');
  assert.deepEqual(
    [
      meshy.input.mode,
      meshy.input.topology,
      meshy.input.target_polycount,
      meshy.input.symmetry_mode,
      meshy.input.pose_mode,
      meshy.input.enable_pbr,
    ],
    ['preview', 'quad', 12_000, 'on', 't-pose', true],
  );
  const meshyImage = inputOf(meshyRoutes, model3d({ ...asked, mode: 'preview', imageUrl: IMAGE }));
  assert.equal(meshyImage.endpoint, 'fal-ai/meshy/v6-preview/image-to-3d');
  assert.deepEqual([meshyImage.input.image_url, meshyImage.input.should_texture], [IMAGE, false]);

  const tripoRoutes = routesOf(media.model_3d, 'tripo-2.5');
  assert.equal(registry.candidates(tripoRoutes ?? [], model3d()).length, 0, 'no fal endpoint for Tripo from text');
  const tripo = inputOf(tripoRoutes, model3d({ imageUrl: IMAGE, mode: 'preview', topology: 'quad', pbr: true }));
  assert.deepEqual(
    [tripo.input.texture, tripo.input.quad, tripo.input.face_limit, tripo.input.pbr],
    ['no', true, 30_000, true],
  );

  const rodinRoutes = routesOf(media.model_3d, 'rodin-gen-1');
  const rodin = inputOf(rodinRoutes, model3d({ imageUrl: IMAGE, pbr: true, tPose: true }));
  assert.deepEqual([rodin.input.input_image_urls, rodin.input.material, rodin.input.TAPose], [[IMAGE], 'PBR', true]);
  assert.equal(inputOf(rodinRoutes, model3d()).input.material, 'Shaded');
  assert.match(refusal(rodinRoutes, model3d({ topology: 'quad' })), /takes no topology/);
  assert.match(refusal(routesOf(media.model_3d, 'trellis'), model3d({ imageUrl: IMAGE, pbr: true })), /no pbr/);
});

test('speech: MiniMax is sent the text, the voice, its speed and emotion, the language and audio it can make', () => {
  const wav = inputOf(TTS_ROUTES, speech({ format: 'wav', speed: 1.25, language: 'fr', emotion: 'excited', seed: 42 }));
  assert.equal(wav.endpoint, 'fal-ai/minimax/speech-02-hd');
  assert.deepEqual(wav.input, {
    text: 'The keeper counts the ships that pass the light.',
    voice_setting: { voice_id: 'Wise_Woman', speed: 1.25, emotion: 'happy' },
    language_boost: 'French',
    audio_setting: { format: 'pcm', sample_rate: 22050, channel: 1 },
    output_format: 'url',
  });
  assert.equal('vol' in (wav.input.voice_setting as object), false, 'the service applies the volume');
  assert.equal('seed' in wav.input, false, 'MiniMax takes no seed');

  // MiniMax makes MP3, FLAC and raw PCM; the service wraps or converts the rest.
  const audio = Object.fromEntries(
    TTS_FORMATS.map((format) => [format, inputOf(TTS_ROUTES, speech({ format })).input.audio_setting]),
  );
  const mp3 = { format: 'mp3', sample_rate: 44100, bitrate: 128000, channel: 1 };
  const pcm = { format: 'pcm', sample_rate: 22050, channel: 1 };
  assert.deepEqual(audio, {
    mp3,
    wav: pcm,
    ogg: mp3,
    flac: { format: 'flac', sample_rate: 44100, channel: 1 },
    aac: mp3,
    pcm,
  });

  const emotionOf = (emotion: string) =>
    (inputOf(TTS_ROUTES, speech({ emotion })).input.voice_setting as { emotion: string }).emotion;
  assert.deepEqual(Object.fromEntries(TTS_EMOTIONS.map((e) => [e, emotionOf(e)])), {
    neutral: 'neutral',
    happy: 'happy',
    sad: 'sad',
    angry: 'angry',
    fearful: 'fearful',
    disgusted: 'disgusted',
    surprised: 'surprised',
    excited: 'happy',
    calm: 'neutral',
  });
  for (const [alias, emotion] of Object.entries(EMOTION_ALIASES)) {
    const expected = emotion === 'excited' ? 'happy' : emotion === 'calm' ? 'neutral' : emotion;
    assert.equal(emotionOf(alias), expected, alias);
  }
  assert.equal(emotionOf('sarcastic'), 'neutral', 'an emotion we do not know speaks neutral');

  const boostOf = (language: string) => inputOf(TTS_ROUTES, speech({ language })).input.language_boost;
  assert.deepEqual(['en', 'zh', 'de', 'ja', 'ko', 'he', 'no', 'nb', 'nn', 'af', 'EN'].map(boostOf), [
    'English',
    'Chinese',
    'German',
    'Japanese',
    'Korean',
    'Hebrew',
    'Norwegian',
    'Norwegian',
    'Nynorsk',
    'Afrikaans',
    'English',
  ]);
  assert.deepEqual(['eo', 'sw', 'cy'].map(boostOf), ['auto', 'auto', 'auto'], 'a language MiniMax does not list');

  const voice = inputOf(TTS_ROUTES, speech({ voices: { elevenlabs: 'el-123', fal: 'Deep_Voice_Man' } }));
  assert.equal((voice.input.voice_setting as { voice_id: string }).voice_id, 'Deep_Voice_Man');
  const edges = [0.5, 2].map((speed) => inputOf(TTS_ROUTES, speech({ speed })).input.voice_setting);
  assert.deepEqual(
    edges.map((v) => (v as { speed: number }).speed),
    [0.5, 2],
  );
  const longest = 'é'.repeat(5000);
  assert.equal(inputOf(TTS_ROUTES, speech({ text: longest })).input.text, longest);
});

test('speech: MiniMax refuses a voice it does not have, no text, too much text and speeds it cannot reach', () => {
  assert.match(refusal(TTS_ROUTES, speech({ voices: {} })), /only MiniMax voices/);
  assert.match(refusal(TTS_ROUTES, speech({ voices: { elevenlabs: 'el-123' } })), /only MiniMax voices/);
  assert.match(refusal(TTS_ROUTES, speech({ voices: { fal: '' } })), /only MiniMax voices/);
  assert.match(refusal(TTS_ROUTES, speech({ text: '' })), /needs some text/);
  assert.match(refusal(TTS_ROUTES, speech({ text: ' \n\t ' })), /needs some text/);
  assert.match(refusal(TTS_ROUTES, speech({ text: 'a'.repeat(5001) })), /at most 5000 characters \(asked: 5001\)/);
  assert.match(refusal(TTS_ROUTES, speech({ speed: 0.49 })), /speeds 0.5 to 2, not 0.49/);
  assert.match(refusal(TTS_ROUTES, speech({ speed: 2.01 })), /speeds 0.5 to 2, not 2.01/);
  assert.match(refusal(TTS_ROUTES, speech({ speed: Number.NaN })), /speeds 0.5 to 2/);
  assert.match(refusal(TTS_ROUTES, speech({ format: 'opus' })), /makes no opus audio/);
});

test('speech: what fal answers for MiniMax is read as one audio file that decodes, in the format asked', async (t) => {
  const fal = await startFakeFal();
  t.after(() => fal.close());
  const provider = createFalProvider({ key: fal.key, queueUrl: fal.url, fetch, jwks: jwksFromUrl(fal.jwksUrl, fetch) });
  // wav is made from MiniMax's raw PCM, at the rate of our own pcm.
  for (const [format, contentType, codec] of [
    ['mp3', 'audio/mpeg', 'mp3'],
    ['flac', 'audio/flac', 'flac'],
    ['wav', 'audio/pcm', null],
  ] as const) {
    const { endpoint, input } = inputOf(TTS_ROUTES, speech({ format }));
    const submitted = await provider.submit({ endpoint, input, idempotencyKey: `speech-${format}` });
    if (submitted.kind !== 'accepted') assert.fail('fal queues the job');
    assert.deepEqual([fal.submissions.at(-1)?.endpoint, fal.submissions.at(-1)?.input], [endpoint, input]);
    let polled = await provider.poll(submitted.handle);
    for (let polls = 1; polled.kind === 'pending' && polls < 5; polls++) polled = await provider.poll(submitted.handle);
    if (polled.kind !== 'done') assert.fail(`the job is done: ${JSON.stringify(polled)}`);
    const { files, metadata } = polled.output;
    assert.equal(files.length, 1, 'the audio is the one file');
    const [file] = files;
    if (!file || !('url' in file)) assert.fail('the audio is at a URL (output_format url)');
    assert.equal(file.contentType, contentType);
    assert.equal(metadata.duration_ms, 1000);
    const bytes = Buffer.from(await (await fetch(file.url)).arrayBuffer());
    assert.equal(file.size, bytes.length);
    if (codec) {
      const probe = await probeMedia(bytes);
      assert.deepEqual([probe.audioCodec, probe.sampleRate, probe.channels], [codec, 44100, 1]);
      assert.ok(Math.abs(probe.durationSeconds - 1) < 0.1, `${probe.durationSeconds} s`);
    } else {
      assert.equal(bytes.length, 22050 * 2, 'a second of 16-bit mono samples at 22 050 Hz');
    }
  }
});

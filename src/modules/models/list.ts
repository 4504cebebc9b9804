// The one model list: every model of every catalog with its kind, the endpoint that takes it, what
// it accepts and its price. Prices are read from the catalog entries and the constants the
// endpoints charge with, never written here, so the list cannot disagree with a charge.

import { ENDPOINT_PRICED } from '../../catalog/endpoint-prices.ts';
import { defaultOf, type MediaCatalog } from '../../catalog/media-models.ts';
import type { ModelCatalog, ModelRoute } from '../../catalog/models.ts';
import { ENDPOINT_MODELS, enabledRoutes, INFLUENCER_MODEL_ROUTES } from '../../catalog/routes.ts';
import { PRESET_VOICES, TTS_EMOTIONS, TTS_FORMATS } from '../../catalog/voices.ts';
import { scaleCharge, scaleRate } from '../../lib/multiplier.ts';
import { INFLUENCER_IMAGE_CREDITS } from '../influencers/image-plan.ts';
import { INFLUENCER_VIDEO_CREDITS_PER_SECOND } from '../influencers/service.ts';
import { type LiveConfig, permits } from '../live-config/store.ts';
import { TTS_CREDITS } from '../speech/service.ts';
import { FAMILY_PRICE, LORA_VIDEO_CREDITS_PER_SECOND, MOTION_CONTROL_CREDITS_PER_SECOND } from '../videos/service.ts';
import { VOICE_CREDITS } from '../voices/service.ts';
import { MODEL_KINDS, type ModelKind, type ModelListEntry, type ModelPrice } from './schemas.ts';

/** The endpoint each kind's catalog serves, and the request field that names a model of it. */
export const KIND_ENDPOINTS: Record<ModelKind, { endpoint: string; field: ModelListEntry['field'] }> = {
  image: { endpoint: 'POST /api/v1/images/generate', field: 'model' },
  edit: { endpoint: 'POST /api/v1/images/edit', field: 'model' },
  face: { endpoint: 'POST /api/v1/images/generate-face', field: null },
  video: { endpoint: 'POST /api/v1/videos/generate', field: 'model' },
  lipsync: { endpoint: 'POST /api/v1/videos/lipsync', field: 'model' },
  reference_video: { endpoint: 'POST /api/v1/videos/reference-to-video', field: 'model' },
  talking_head: { endpoint: 'POST /api/v1/videos/talking-head', field: 'model' },
  upscale: { endpoint: 'POST /api/v1/videos/upscale', field: 'model' },
  music: { endpoint: 'POST /api/v1/music/generate', field: 'model' },
  model_3d: { endpoint: 'POST /api/v1/models-3d/generate', field: 'model' },
  text: { endpoint: 'POST /api/v1/text/generate', field: 'model' },
  voice: { endpoint: 'POST /api/v2/text-to-speech', field: 'voice_id' },
};

/** The kind of the list of each model an endpoint names itself (endpoint-routes.json's kind). */
const ENDPOINT_MODEL_KINDS: Record<string, ModelKind> = { video: 'video', speech: 'voice', voice: 'voice' };

/** The path of an endpoint-routes.json operation: text to speech is the one endpoint under /api/v2. */
const operationEndpoint = (operation: string) =>
  `POST /api/${operation === 'text-to-speech' ? 'v2' : 'v1'}/${operation}`;

/** What the endpoints an endpoint-routes.json model serves charge for it, and what they take. */
const ENDPOINT_MODEL_TERMS: Record<string, { price: ModelPrice; settings?: Record<string, unknown> }> = {
  'kling-2.6-motion-control': { price: { credits: MOTION_CONTROL_CREDITS_PER_SECOND, unit: 'input_second' } },
  'wan-2.2-lora': {
    price: {
      credits: { ...LORA_VIDEO_CREDITS_PER_SECOND },
      unit: 'second',
      by: 'settings.resolution',
      default: '720p',
    },
    settings: { resolutions: Object.keys(LORA_VIDEO_CREDITS_PER_SECOND) },
  },
  'influencer-video': { price: { credits: INFLUENCER_VIDEO_CREDITS_PER_SECOND, unit: 'second' } },
  tts: {
    price: { credits: TTS_CREDITS, unit: 'generation' },
    settings: { emotions: [...TTS_EMOTIONS], output_formats: [...TTS_FORMATS] },
  },
  'voice-clone-v1': { price: { credits: VOICE_CREDITS.clone, unit: 'voice' }, settings: { method: 'clone' } },
  'voice-design-v1': { price: { credits: VOICE_CREDITS.design, unit: 'voice' }, settings: { method: 'design' } },
};

interface Described {
  id: string;
  name: string;
  description: string;
  default?: boolean;
}

/** How a listed model is served here: whether it can be made, and whether the simulator makes it. */
export type ModelAvailability = Pick<ModelListEntry, 'available' | 'simulator'>;

/**
 * The routes that serve each listed model (kind and id), or `own` for what the service makes
 * itself: what its availability is worked out from.
 */
export type ModelServing = (kind: ModelKind, id: string, routes: readonly ModelRoute[] | 'own') => ModelAvailability;

// The voice models the service makes itself when no voice vendor is configured (a voice's profile).
const OWN_WORK_MODELS = new Set(['voice-clone-v1', 'voice-design-v1']);

/** Every model of every kind, in the order of MODEL_KINDS and then of the catalogs. */
export function buildModelList(
  catalog: ModelCatalog,
  media: MediaCatalog,
  serving: ModelServing,
  voiceRoutes: (voiceId: string) => readonly ModelRoute[],
): ModelListEntry[] {
  const out: Array<Omit<ModelListEntry, 'available' | 'simulator'>> = [];
  const add = (
    kind: ModelKind,
    m: Described,
    isDefault: boolean,
    rest: Pick<ModelListEntry, 'capabilities' | 'settings' | 'price'>,
  ) => {
    out.push({
      id: m.id,
      kind,
      name: m.name,
      description: m.description,
      ...KIND_ENDPOINTS[kind],
      default: isDefault,
      ...rest,
    });
  };

  for (const kind of ['image', 'edit', 'face'] as const) {
    for (const m of catalog[kind]) {
      add(kind, m, kind !== 'face' && catalog.defaults[kind].id === m.id, {
        capabilities: { ...m.capabilities },
        settings: { ...m.settings },
        price: { credits: m.price.credits_per_image, unit: 'image' },
      });
    }
  }
  out.push({
    id: INFLUENCER_MODEL_ROUTES.id,
    kind: 'image',
    name: INFLUENCER_MODEL_ROUTES.id,
    description: (INFLUENCER_MODEL_ROUTES as { description?: string }).description ?? null,
    endpoint: 'POST /api/v1/influencers/generate',
    field: null,
    default: false,
    capabilities: {},
    settings: {},
    price: { credits: { ...INFLUENCER_IMAGE_CREDITS }, unit: 'image', by: 'lora_url', default: 'standard' },
  });

  const mediaDefault = (list: readonly Described[], m: Described) => defaultOf([...list]).id === m.id;
  for (const m of media.video) {
    add('video', m, mediaDefault(media.video, m), {
      capabilities: { ...m.capabilities, provider_family: m.provider_family },
      settings: m.provider_family
        ? { ...m.settings, providers: media.video_providers.map((p) => p.id) }
        : { ...m.settings },
      price: m.provider_family
        ? { credits: { ...FAMILY_PRICE }, unit: 'second', by: 'settings.quality', default: 'high' }
        : { credits: m.price.credits_per_second, unit: 'second' },
    });
  }
  for (const m of media.lipsync) {
    add('lipsync', m, mediaDefault(media.lipsync, m), {
      capabilities: {},
      settings: { ...m.settings },
      price: { credits: m.price.credits_per_second, unit: 'input_second' },
    });
  }
  for (const m of media.reference_video) {
    add('reference_video', m, mediaDefault(media.reference_video, m), {
      capabilities: { per_segment_shots: m.per_segment_shots, native_audio: m.native_audio },
      settings: { ...m.settings },
      price: { credits: m.price.credits_per_second, unit: 'second' },
    });
  }
  for (const m of media.talking_head) {
    add('talking_head', m, mediaDefault(media.talking_head, m), {
      capabilities: { sheet_based: m.sheet_based, needs_audio: m.needs_audio },
      settings: { ...m.settings },
      price: { credits: m.price.credits_per_second, unit: 'second' },
    });
  }
  for (const m of media.upscalers) {
    add('upscale', m, mediaDefault(media.upscalers, m), {
      capabilities: {},
      settings: { video_models: m.video_models.map((v) => v.id), default_video_model: m.default_video_model ?? null },
      price: {
        credits: { ...m.credits_per_second_by_tier },
        unit: 'input_second',
        by: 'output_height',
        multipliers: { target_fps: 2 },
      },
    });
  }
  for (const m of media.music) {
    add('music', m, mediaDefault(media.music, m), {
      capabilities: {},
      settings: { max_duration_seconds: m.max_duration_seconds, max_lyrics_chars: m.max_lyrics_chars },
      price: { credits: m.price.credits_per_track, unit: 'track' },
    });
  }
  for (const m of media.model_3d) {
    add('model_3d', m, mediaDefault(media.model_3d, m), {
      capabilities: { ...m.capabilities },
      settings: {},
      price: { credits: { ...m.price }, unit: '3d_model', by: 'settings.mode', default: 'full' },
    });
  }
  for (const m of media.text) {
    add('text', m, mediaDefault(media.text, m), {
      capabilities: {},
      settings: { context_window: m.context_window, max_output_tokens: m.max_output_tokens },
      price: {
        credits: { input: m.price.input_per_1k, output: m.price.output_per_1k },
        unit: '1k_tokens',
        by: 'usage',
      },
    });
  }
  for (const v of PRESET_VOICES) {
    add('voice', v, false, {
      capabilities: {},
      settings: { tier: v.tier, gender: v.gender, language: v.language },
      price: { credits: TTS_CREDITS, unit: 'generation' },
    });
  }

  for (const [id, model] of Object.entries(ENDPOINT_MODELS)) {
    const kind = ENDPOINT_MODEL_KINDS[model.kind];
    const terms = ENDPOINT_MODEL_TERMS[id];
    if (!kind || !terms) {
      throw new Error(`Model list: endpoint-routes.json's ${id} (kind ${model.kind}) has no kind or price here`);
    }
    out.push({
      id,
      kind,
      name: id,
      description: null,
      endpoint: operationEndpoint(model.operation),
      field: null,
      default: false,
      capabilities: {},
      settings: terms.settings ?? {},
      price: terms.price,
    });
  }
  const routesOf = (kind: ModelKind, id: string): readonly ModelRoute[] | 'own' => {
    if (OWN_WORK_MODELS.has(id)) return 'own';
    if (kind === 'image' && id === INFLUENCER_MODEL_ROUTES.id) return INFLUENCER_MODEL_ROUTES.routes;
    if (kind === 'image' || kind === 'edit' || kind === 'face') {
      return catalog[kind].find((m) => m.id === id)?.routes ?? [];
    }
    if (kind === 'voice') return ENDPOINT_MODELS[id]?.routes ?? voiceRoutes(id);
    const list = kind === 'upscale' ? media.upscalers : media[kind];
    return list.find((m) => m.id === id)?.routes ?? ENDPOINT_MODELS[id]?.routes ?? [];
  };
  const rank = (kind: ModelKind) => MODEL_KINDS.indexOf(kind);
  return out
    .map((entry, i) => ({ entry, i }))
    .sort((a, b) => rank(a.entry.kind) - rank(b.entry.kind) || a.i - b.i)
    .map(({ entry }) => ({ ...entry, ...serving(entry.kind, entry.id, routesOf(entry.kind, entry.id)) }));
}

const article = (word: string) => (/^[aeiou]/i.test(word) ? `an ${word}` : `a ${word}`);

const KIND_LABELS: Record<ModelKind, string> = {
  image: 'image model',
  edit: 'edit model',
  face: 'face model',
  video: 'video model',
  lipsync: 'lip-sync model',
  reference_video: 'reference-to-video model',
  talking_head: 'talking-head model',
  upscale: 'upscaler',
  music: 'music model',
  model_3d: '3D model',
  text: 'text model',
  voice: 'voice',
};

/** How to use an entry, for the message of a model given to another endpoint. */
export function usageHint(entry: ModelListEntry): string {
  // The voice models endpoints name themselves (speech, clones, designs) are not voices to speak in.
  const what = article(entry.kind === 'voice' && entry.field === null ? 'speech model' : KIND_LABELS[entry.kind]);
  if (entry.field === 'model') return `${what}: use ${entry.endpoint}`;
  if (entry.field) return `${what}: give it as ${entry.field} to ${entry.endpoint}`;
  return `${what} that ${entry.endpoint} uses on its own`;
}

const numbers = (value: unknown): Record<string, number> =>
  Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, Number(v)]));

/** The list's `credits` of a price object the operator set (see ModelPrice and each kind's price object). */
function listedCredits(price: Record<string, unknown>): ModelPrice['credits'] {
  if ('input_per_1k' in price) return { input: Number(price.input_per_1k), output: Number(price.output_per_1k) };
  // The influencer model: its images by lora_url (its training is not a model of the list).
  if ('credits_per_lora_image' in price) {
    return { standard: Number(price.credits_per_image), lora: Number(price.credits_per_lora_image) };
  }
  // An upscaler: the list shows its tiers (the megapixel rate is the deprecated endpoint's).
  if ('credits_per_second_by_tier' in price) return numbers(price.credits_per_second_by_tier);
  const values = Object.values(price);
  // One rate ({credits_per_second}), or one object of rates by a setting ({credits_per_second_by_quality}).
  if (values.length === 1) return typeof values[0] === 'number' ? values[0] : numbers(values[0]);
  return numbers(price);
}

// Units of which each is one item charged on its own: a team's rate is its charge, rounded up.
const WHOLE_UNITS: ReadonlySet<ModelPrice['unit']> = new Set(['image', 'track', '3d_model', 'generation', 'voice']);

/** A price as a team with `multiplier` is charged it (see ModelPrice's `multiplier`). */
function withMultiplier(price: ModelPrice, multiplier: number): ModelPrice {
  if (multiplier === 1) return price;
  const scale = (credits: number) =>
    WHOLE_UNITS.has(price.unit) ? scaleCharge(credits, multiplier) : scaleRate(credits, multiplier);
  const credits =
    typeof price.credits === 'number'
      ? scale(price.credits)
      : Object.fromEntries(Object.entries(price.credits).map(([k, v]) => [k, scale(v)]));
  return { ...price, credits, multiplier };
}

/**
 * The list as a team sees it now: the operator's prices and switched-off models applied, the
 * team's price multiplier applied to every price, the aliases beside the models they stand for,
 * and the models the team's rules close to it left out; for a model whose routes the operator
 * replaced, how it is served on those (its enabled routes: `serving`; the service's own work stays
 * its own).
 */
export function liveModelList(
  all: readonly ModelListEntry[],
  live: LiveConfig,
  teamId: string,
  serving: ModelServing,
): ModelListEntry[] {
  const rules = live.teamRules(teamId);
  // Speaking in a voice costs what the speech model does.
  const speech = live.priceOf(ENDPOINT_PRICED.speech.kind, ENDPOINT_PRICED.speech.model);
  const out: ModelListEntry[] = [];
  for (const base of all) {
    if (!permits(rules, base.kind, base.id)) continue;
    let entry = base;
    const routes = OWN_WORK_MODELS.has(base.id) ? undefined : live.routesOf(base.kind, base.id);
    if (routes)
      entry = {
        ...entry,
        ...serving(base.kind, base.id, enabledRoutes(routes)),
      };
    const override = live.override(base.kind, base.id);
    const price = override?.price ?? (base.kind === 'voice' && base.field === 'voice_id' ? speech : undefined);
    if (price) entry = { ...entry, price: { ...entry.price, credits: listedCredits(price) } };
    entry = { ...entry, price: withMultiplier(entry.price, rules.priceMultiplier) };
    if (override?.available === false) entry = { ...entry, available: false };
    out.push(entry);
    for (const alias of live.aliasesOf(base.kind, base.id)) {
      out.push({ ...entry, id: alias, name: alias, default: false, alias_of: base.id });
    }
  }
  return out;
}

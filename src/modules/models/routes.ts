import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { FAMILY_PRICE as CATALOG_FAMILY_PRICE, type FamilyPrice } from '../../catalog/endpoint-prices.ts';
import { linkModelUsage } from '../../catalog/lookup.ts';
import { simulatorMayServe } from '../../config.ts';
import { scaleCharge, scaleRate } from '../../lib/multiplier.ts';
import { errorResponses } from '../../lib/schemas.ts';
import { permits } from '../live-config/store.ts';
import { speechRoutes } from '../speech/speak.ts';
import { buildModelList, liveModelList, type ModelServing, usageHint } from './list.ts';
import { MODEL_KINDS, ModelListQuery, ModelListResponse } from './schemas.ts';

const Entry = {
  id: Type.String(),
  name: Type.String(),
  vendor: Type.String(),
  category: Type.String(),
  description: Type.String(),
  default: Type.Boolean(),
  capabilities: Type.Record(Type.String(), Type.Unknown()),
  settings: Type.Record(Type.String(), Type.Unknown()),
  price: Type.Record(Type.String(), Type.Unknown()),
  estimated_seconds: Type.Number(),
};

const ImageModelEntry = Type.Object(
  {
    ...Entry,
    supports_lora: Type.Boolean(),
    lora_types: Type.Optional(Type.Array(Type.String(), { description: 'Present when supports_lora is true' })),
  },
  { $id: 'ImageModelEntry', title: 'ImageModelEntry' },
);

const VideoModelEntry = Type.Object(
  {
    ...Entry,
    providers: Type.Optional(
      Type.Array(Type.Record(Type.String(), Type.Unknown()), {
        description: 'The provider family only: settings.provider values, the first is the default',
      }),
    ),
  },
  { $id: 'VideoModelEntry', title: 'VideoModelEntry' },
);

/** The provider family's price as the contract's video list shows it: by the resolution of each quality. */
const familyListed = (price: FamilyPrice) => ({
  credits_per_second: {
    '720p': price.credits_per_second_by_quality.basic,
    '1080p': price.credits_per_second_by_quality.high,
  },
});

/** Every number of a price object, scaled. */
function scaleAll(value: unknown, scale: (n: number) => number): unknown {
  if (typeof value === 'number') return scale(value);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scaleAll(v, scale)]));
}

export default async function modelRoutes(app: App): Promise<void> {
  const { catalog, media } = app.deps;

  const images = [...catalog.image, ...catalog.edit, ...catalog.face].map((m) => {
    const { supports_lora, lora_types, ...capabilities } = m.capabilities;
    return {
      id: m.id,
      name: m.name,
      vendor: m.vendor,
      category: m.kind,
      description: m.description,
      default: m.default ?? false,
      capabilities: { ...capabilities, supports_lora },
      settings: m.settings,
      price: m.price,
      estimated_seconds: m.estimated_seconds,
      supports_lora,
      ...(supports_lora && lora_types ? { lora_types } : {}),
    };
  });

  const common = (
    category: string,
    m: { id: string; name: string; vendor: string; description: string; default?: boolean; estimated_seconds: number },
  ) => ({
    id: m.id,
    name: m.name,
    vendor: m.vendor,
    category,
    description: m.description,
    default: m.default ?? false,
    estimated_seconds: m.estimated_seconds,
  });
  const videos = [
    ...media.video.map((m) => ({
      ...common('video', m),
      capabilities: { ...m.capabilities, provider_family: m.provider_family },
      settings: m.settings,
      price: m.provider_family ? familyListed(CATALOG_FAMILY_PRICE) : m.price,
      ...(m.provider_family ? { providers: media.video_providers } : {}),
    })),
    ...media.lipsync.map((m) => ({ ...common('lipsync', m), capabilities: {}, settings: m.settings, price: m.price })),
    ...media.talking_head.map((m) => ({
      ...common('talking_head', m),
      capabilities: { sheet_based: m.sheet_based, needs_audio: m.needs_audio },
      settings: m.settings,
      price: m.price,
    })),
    ...media.reference_video.map((m) => ({
      ...common('reference_video', m),
      capabilities: { per_segment_shots: m.per_segment_shots, native_audio: m.native_audio },
      settings: m.settings,
      price: m.price,
    })),
    ...media.upscalers.map((m) => ({
      ...common('upscale', m),
      capabilities: {},
      settings: { video_models: m.video_models, default_video_model: m.default_video_model ?? null },
      price: {
        credits_per_second_by_tier: m.credits_per_second_by_tier,
        credits_per_output_megapixel: m.credits_per_output_megapixel,
      },
    })),
  ];

  // The two lists of the contract as a team sees them now: the operator's prices, its model rules
  // and its price multiplier (a price per image rounded up as charged, rates to the millionth).
  const liveEntries = <T extends { id: string; category: string; price: unknown }>(list: T[], teamId: string): T[] => {
    const rules = app.deps.live.teamRules(teamId);
    const multiplier = rules.priceMultiplier;
    return list
      .filter((entry) => permits(rules, entry.category, entry.id))
      .map((entry) => {
        const set = app.deps.live.priceOf(entry.category, entry.id);
        const price =
          set && 'credits_per_second_by_quality' in set ? familyListed(set as FamilyPrice) : (set ?? entry.price);
        if (multiplier === 1) return set ? { ...entry, price } : entry;
        const perImage = ['image', 'edit', 'face'].includes(entry.category);
        return {
          ...entry,
          price: scaleAll(price, (n) => (perImage ? scaleCharge(n, multiplier) : scaleRate(n, multiplier))),
        };
      });
  };

  // The one model list (an extension): every kind, the endpoint that takes each model, its price.
  // How each model is served here: on the catalog's routes, worked out at start like the
  // configuration it follows; on the operator's live routes of a model, at each request.
  const { providers, config } = app.deps;
  const serving: ModelServing = (kind, id, routes) => {
    if (routes === 'own' || providers.candidates(routes).length > 0) return { available: true, simulator: false };
    const allowed = simulatorMayServe(config.providers.simulator, kind, id);
    return { available: allowed, simulator: allowed };
  };
  const all = buildModelList(catalog, media, serving, (voiceId) =>
    speechRoutes({ vendorVoiceIds: config.providers.elevenLabs.voiceMap }, { voice_id: voiceId }),
  );
  linkModelUsage(
    [
      catalog.image,
      catalog.edit,
      catalog.face,
      media.video,
      media.lipsync,
      media.reference_video,
      media.talking_head,
      media.upscalers,
      media.music,
      media.model_3d,
      media.text,
    ],
    (id) => all.filter((entry) => entry.id === id).map(usageHint),
  );

  app.get(
    '/api/v1/models',
    {
      schema: {
        tags: ['Models'],
        summary: 'Every model of every kind, with the endpoint that takes it, its settings and its price',
        description:
          `An extension beside the two lists of the contract. kind is one of ${MODEL_KINDS.join(', ')}; ` +
          '?kind= keeps one. An id may be listed under two kinds (an image and an edit model, say), as two ' +
          'entries. endpoint is the method and path that takes the model, field the request field that names ' +
          'it (null when the endpoint picks it itself). price is what that endpoint charges: credits per unit, ' +
          'or by the value of what `by` names; a total is rounded up to a whole credit, at least 1.',
        querystring: ModelListQuery,
        response: { 200: ModelListResponse, ...errorResponses(400, 401) },
      },
    },
    (request) => {
      const { kind } = request.query;
      const live = liveModelList(all, app.deps.live, request.principal.teamId, serving);
      return { data: kind === undefined ? live : live.filter((entry) => entry.kind === kind) };
    },
  );

  app.get(
    '/api/v1/models/images',
    {
      schema: {
        tags: ['Models'],
        summary: 'Image, edit and face models with capabilities, settings, price and LoRA support',
        response: { 200: Type.Array(ImageModelEntry), ...errorResponses(401) },
      },
    },
    (request) => liveEntries(images, request.principal.teamId),
  );

  app.get(
    '/api/v1/models/videos',
    {
      schema: {
        tags: ['Models'],
        summary: 'Video, lip sync, talking-head, reference-to-video and upscaling models',
        response: { 200: Type.Array(VideoModelEntry), ...errorResponses(401) },
      },
    },
    (request) => liveEntries(videos, request.principal.teamId),
  );
}

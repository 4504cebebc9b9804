import { type Static, Type } from 'typebox';

/** The kinds of the one model list, each the catalog an endpoint takes its models from. */
export const MODEL_KINDS = [
  'image',
  'edit',
  'face',
  'video',
  'lipsync',
  'reference_video',
  'talking_head',
  'upscale',
  'music',
  'model_3d',
  'text',
  'voice',
] as const;
export type ModelKind = (typeof MODEL_KINDS)[number];

/** What one unit of a price is. */
export const PRICE_UNITS = [
  'image',
  'second',
  'input_second',
  'track',
  '3d_model',
  '1k_tokens',
  'generation',
  'voice',
] as const;

export const ModelPrice = Type.Object(
  {
    credits: Type.Union([Type.Number(), Type.Record(Type.String(), Type.Number())], {
      description:
        'Credits per unit: a number, or an object keyed by the value of what `by` names when that picks the rate',
    }),
    unit: Type.Enum([...PRICE_UNITS], {
      description:
        "'image': each image made (a batch of n costs n times); 'second': each second of the video made; " +
        "'input_second': each second of the video given in video_url, measured when the request arrives; " +
        "'track', '3d_model', 'generation' (one speech), 'voice' (one voice made): each; " +
        "'1k_tokens': per 1,000 tokens, credits being {input, output} for prompt and completion tokens",
    }),
    by: Type.Optional(
      Type.String({
        description:
          'With credits an object: what picks the key: a request field (settings.quality, settings.mode, ' +
          "settings.resolution; lora_url: 'standard' without it, 'lora' with it), 'output_height' (the " +
          "video's height × upscale_factor, priced at the smallest tier that holds it, the top tier beyond) " +
          "or 'usage' (prompt tokens at input, completion tokens at output)",
      }),
    ),
    default: Type.Optional(Type.String({ description: 'The key of credits that applies when the request names none' })),
    multipliers: Type.Optional(
      Type.Record(Type.String(), Type.Number(), {
        description: 'Request fields that multiply the price when given, with their factor',
      }),
    ),
    multiplier: Type.Optional(
      Type.Number({
        description:
          "The team's price multiplier, present when it is not 1 and already applied to credits: a price per " +
          'image, track, 3D model, speech or voice is what each costs the team (rounded up to a whole credit); ' +
          'a rate per second or per 1,000 tokens is shown to the millionth, and a request is charged its list ' +
          'total (rounded up) times the multiplier, rounded up to a whole credit',
      }),
    ),
  },
  {
    $id: 'ModelPrice',
    title: 'ModelPrice',
    description:
      "The price as the endpoint charges it: credits × units (× multipliers); a request's total is rounded up to a " +
      'whole credit, and is at least 1',
  },
);
export type ModelPrice = Static<typeof ModelPrice>;

export const ModelListEntry = Type.Object(
  {
    id: Type.String({ description: 'The model id (the same id may be listed under two kinds)' }),
    kind: Type.Enum([...MODEL_KINDS]),
    name: Type.String({ description: 'Display name; the id for models the catalog gives no name' }),
    description: Type.Union([Type.String(), Type.Null()]),
    endpoint: Type.String({
      description: 'Method and path of the endpoint that takes it',
      examples: ['POST /api/v1/images/edit'],
    }),
    field: Type.Union([Type.Enum(['model', 'voice_id']), Type.Null()], {
      description:
        'The request field that names it; null when the endpoint picks it itself (face models, chosen by seed; models an endpoint is built on)',
    }),
    default: Type.Boolean({ description: 'Whether the endpoint uses it when the request names no model' }),
    capabilities: Type.Record(Type.String(), Type.Unknown()),
    settings: Type.Record(Type.String(), Type.Unknown(), {
      description: 'What the model accepts, as the catalog has it (aspect ratios, durations, resolutions, steps...)',
    }),
    price: ModelPrice,
    available: Type.Boolean({
      description:
        'Whether this service can make it now: a configured provider serves it, or the operator lets the ' +
        'simulator stand in for it. A request naming a model that is not available answers 503 model_unavailable ' +
        'and charges nothing',
    }),
    simulator: Type.Boolean({
      description:
        "Whether the service's built-in simulator makes it here (no configured provider serves it): results are " +
        "stand-in files of the requested shape, and their status records say provider 'simulator'",
    }),
    alias_of: Type.Optional(
      Type.String({
        description:
          'Present on an alias the operator made: the model it stands for (a request naming the alias is priced and run as that model)',
      }),
    ),
  },
  { $id: 'ModelListEntry', title: 'ModelListEntry' },
);
export type ModelListEntry = Static<typeof ModelListEntry>;

export const ModelListQuery = Type.Object({
  kind: Type.Optional(Type.Enum([...MODEL_KINDS], { description: 'Only the models of this kind' })),
});

export const ModelListResponse = Type.Object({ data: Type.Array(ModelListEntry) });

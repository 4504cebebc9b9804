import { readFileSync } from 'node:fs';
import { type Static, Type } from 'typebox';
import Value from 'typebox/value';

/** The six LoRA base types; the fourth is the default when `lora_url` is given without `lora_type`. */
export const LORA_TYPES = ['sd-1.5', 'sdxl', 'pony', 'flux-1-dev', 'flux-1-schnell', 'qwen-image'] as const;
export const DEFAULT_LORA_TYPE = LORA_TYPES[3];

/** Aspect ratios an image model may accept. */
export const IMAGE_ASPECT_RATIOS = [
  '1:1',
  '16:9',
  '9:16',
  '4:3',
  '3:4',
  '3:2',
  '2:3',
  '21:9',
  '9:21',
  '5:4',
  '4:5',
] as const;

const Route = Type.Object({
  provider: Type.String({ minLength: 1, description: 'Real provider that serves it when configured, e.g. fal' }),
  endpoint: Type.String({ minLength: 1, description: "The provider's endpoint id, e.g. fal-ai/flux-pro/v1.1" }),
  mapping: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        "How the request becomes this endpoint's input (see the provider's mappings); a route without one is not served yet",
    }),
  ),
  image_endpoint: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'The endpoint used instead when the request brings images to start from',
    }),
  ),
  image_mapping: Type.Optional(Type.String({ minLength: 1, description: "The mapping of image_endpoint's input" })),
  params: Type.Optional(
    Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
      description: 'Fixed input fields this route sends (e.g. the base model of a generic endpoint)',
    }),
  ),
  tier: Type.Optional(
    Type.Integer({
      minimum: 0,
      description: "The lowest tier's routes are tried first; absent: the route's place in the list",
    }),
  ),
  weight: Type.Optional(
    Type.Number({ exclusiveMinimum: 0, description: 'The share of picks among the usable routes of its tier (1)' }),
  ),
  enabled: Type.Optional(Type.Boolean({ description: 'false: never used' })),
});

/** One way a vendor serves a model: the provider, its endpoint and the input mapping for it. */
export type ModelRoute = Static<typeof Route>;

/** A model's routes, in order of preference: the first configured one serves. */
export const RoutesSchema = Type.Array(Route, {
  minItems: 1,
  description: 'The vendors that serve the model, in order of preference; the simulator serves when none is configured',
});

/** An image, image-edit or face model of the catalog. */
const ImageModelSchema = Type.Object({
  id: Type.String({ pattern: '^[a-z0-9][a-z0-9.-]*[a-z0-9]$', description: 'Public model id used in requests' }),
  name: Type.String({ minLength: 1 }),
  vendor: Type.String({ minLength: 1 }),
  kind: Type.Enum(['image', 'edit', 'face']),
  description: Type.String({ minLength: 1 }),
  default: Type.Optional(Type.Boolean()),
  capabilities: Type.Object({
    text_to_image: Type.Boolean(),
    image_to_image: Type.Boolean(),
    max_reference_images: Type.Integer({ minimum: 0, maximum: 16 }),
    custom_dimensions: Type.Boolean(),
    negative_prompt: Type.Boolean(),
    supports_lora: Type.Boolean(),
    lora_types: Type.Optional(Type.Array(Type.Enum([...LORA_TYPES]), { minItems: 1 })),
  }),
  settings: Type.Object({
    aspect_ratios: Type.Array(Type.Enum([...IMAGE_ASPECT_RATIOS]), { minItems: 1 }),
    /** Pixel bounds for custom width/height (models with custom_dimensions). */
    min_dimension: Type.Integer({ minimum: 64 }),
    max_dimension: Type.Integer({ maximum: 8192 }),
    max_inference_steps: Type.Integer({ minimum: 1, maximum: 200 }),
  }),
  price: Type.Object({ credits_per_image: Type.Integer({ minimum: 1 }) }),
  estimated_seconds: Type.Number({ exclusiveMinimum: 0 }),
  /** In order of preference: the first whose provider is configured serves. */
  routes: RoutesSchema,
});

export type ImageModel = Static<typeof ImageModelSchema>;

/** The price object of an image, edit or face model (what a live price override is checked against). */
export const IMAGE_PRICE_SCHEMA = ImageModelSchema.properties.price;

const IMAGE_FILES = { image: 'image-models.json', edit: 'edit-models.json', face: 'face-models.json' } as const;

/** The expected number of models of each kind (the spec's counts). */
export const EXPECTED_COUNTS = { image: 43, edit: 16 } as const;

export interface ModelCatalog {
  image: ImageModel[];
  edit: ImageModel[];
  face: ImageModel[];
  /** A model of one kind by id (the same id may name an image and an edit model). */
  find(kind: ImageModel['kind'], id: string): ImageModel | undefined;
  defaults: { image: ImageModel; edit: ImageModel };
}

function fail(file: string, message: string): never {
  throw new Error(`Model catalog ${file}: ${message}`);
}

function loadFile(dir: URL, kind: keyof typeof IMAGE_FILES): ImageModel[] {
  const file = IMAGE_FILES[kind];
  const data: unknown = JSON.parse(readFileSync(new URL(file, dir), 'utf8'));
  const schema = Type.Array(ImageModelSchema, { minItems: 1 });
  if (!Value.Check(schema, data)) {
    const first = [...Value.Errors(schema, data)][0];
    fail(file, `invalid at ${first?.instancePath}: ${first?.message}`);
  }
  for (const model of data) {
    if (model.kind !== kind) fail(file, `${model.id} has kind ${model.kind}, expected ${kind}`);
    if (model.capabilities.supports_lora !== (model.capabilities.lora_types !== undefined)) {
      fail(file, `${model.id}: lora_types must be listed exactly when supports_lora is true`);
    }
    if (!model.settings.aspect_ratios.includes('1:1')) fail(file, `${model.id} must accept the default 1:1`);
    if (model.settings.min_dimension > model.settings.max_dimension) fail(file, `${model.id}: min > max dimension`);
    if (!model.capabilities.text_to_image && !model.capabilities.image_to_image) {
      fail(file, `${model.id} accepts neither text nor images`);
    }
  }
  return data;
}

const CATALOG_DIR = new URL('./models/', import.meta.url);

/** Loads and validates the model catalog; a bad file stops the start with the reason. */
export function loadModelCatalog(dir: URL = CATALOG_DIR): ModelCatalog {
  const image = loadFile(dir, 'image');
  const edit = loadFile(dir, 'edit');
  const face = loadFile(dir, 'face');
  for (const [kind, expected] of Object.entries(EXPECTED_COUNTS)) {
    const count = kind === 'image' ? image.length : edit.length;
    if (count !== expected) fail(IMAGE_FILES[kind as 'image'], `has ${count} models, expected ${expected}`);
  }
  if (face.length < 10)
    fail(IMAGE_FILES.face, 'needs at least 10 models (a face batch of 10 uses 10 different models)');
  const byKey = new Map<string, ImageModel>();
  for (const model of [...image, ...edit, ...face]) {
    const key = `${model.kind}:${model.id}`;
    if (byKey.has(key)) fail(IMAGE_FILES[model.kind], `model id ${model.id} is used twice`);
    byKey.set(key, model);
  }
  const defaultOf = (kind: 'image' | 'edit', models: ImageModel[]) => {
    const defaults = models.filter((m) => m.default);
    if (defaults.length !== 1) fail(IMAGE_FILES[kind], `needs exactly one default model, has ${defaults.length}`);
    return defaults[0] as ImageModel;
  };
  return {
    image,
    edit,
    face,
    find: (kind, id) => byKey.get(`${kind}:${id}`),
    defaults: { image: defaultOf('image', image), edit: defaultOf('edit', edit) },
  };
}

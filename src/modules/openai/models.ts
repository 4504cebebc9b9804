// The models the door answers to, as OpenAI lists them.
import type { Static } from 'typebox';
import type { Deps } from '../../app-types.ts';
import type { OpenAiModel } from './schemas.ts';
import { SPEECH_MODELS } from './speech.ts';

type Model = Static<typeof OpenAiModel>;

/** The catalog has no dates: models are dated when this process loaded it. */
const LOADED_AT = Math.floor(Date.now() / 1000);

/** Every model the door takes: the text models (chat), the image models, then the speech models. */
export function doorModels({ media, catalog }: Pick<Deps, 'media' | 'catalog'>): Model[] {
  const model = (id: string, ownedBy: string): Model => ({
    id,
    object: 'model',
    created: LOADED_AT,
    owned_by: ownedBy,
  });
  return [
    ...media.text.map((m) => model(m.id, m.vendor)),
    ...catalog.image.map((m) => model(m.id, m.vendor)),
    ...SPEECH_MODELS.map((id) => model(id, 'genmedia')),
  ];
}

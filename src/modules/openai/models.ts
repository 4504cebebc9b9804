// The models the door answers to, as OpenAI lists them.
import type { Static } from 'typebox';
import type { Deps } from '../../app-types.ts';
import type { ModelRoute } from '../../catalog/models.ts';
import { simulatorMayServe } from '../../config.ts';
import type { OpenAiModel } from './schemas.ts';
import { SPEECH_MODELS } from './speech.ts';

type Model = Static<typeof OpenAiModel>;

/** The catalog has no dates: models are dated when this process loaded it. */
const LOADED_AT = Math.floor(Date.now() / 1000);

/**
 * Every model the door takes that this service can make now (a configured provider serves it, or
 * the simulator may): the text models (chat), the image models, then the speech models.
 */
export function doorModels({
  media,
  catalog,
  providers,
  config,
}: Pick<Deps, 'media' | 'catalog' | 'providers' | 'config'>): Model[] {
  const model = (id: string, ownedBy: string): Model => ({
    id,
    object: 'model',
    created: LOADED_AT,
    owned_by: ownedBy,
  });
  const available = (kind: string) => (m: { id: string; routes: readonly ModelRoute[] }) =>
    providers.candidates(m.routes).length > 0 || simulatorMayServe(config.providers.simulator, kind, m.id);
  return [
    ...media.text.filter(available('text')).map((m) => model(m.id, m.vendor)),
    ...catalog.image.filter(available('image')).map((m) => model(m.id, m.vendor)),
    ...SPEECH_MODELS.map((id) => model(id, 'genmedia')),
  ];
}

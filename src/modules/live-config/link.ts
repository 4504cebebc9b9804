import { linkLiveModels } from '../../catalog/lookup.ts';
import type { MediaCatalog } from '../../catalog/media-models.ts';
import type { ModelCatalog } from '../../catalog/models.ts';
import { catalogLists } from './service.ts';
import type { LiveConfig } from './store.ts';

/** Lets every lookup of a model in these catalogs apply the live aliases and prices. */
export function linkLiveConfig(live: LiveConfig, catalog: ModelCatalog, media: MediaCatalog): void {
  for (const [kind, list] of Object.entries(catalogLists(catalog, media))) linkLiveModels(list, kind, live);
}

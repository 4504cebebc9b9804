import type { ModelRoute } from '../catalog/models.ts';
import type { Config } from '../config.ts';
import type { ConnectedVendor, ServiceHooks } from './descriptor.ts';
import type { Mapping } from './mapping.ts';
import { type Fetch, type Provider, startsFromImages, type VendorRequest } from './types.ts';
import { VENDORS } from './vendors.ts';

interface Registered extends ConnectedVendor {
  mappings: Record<string, Mapping>;
}

/** The route an item takes, with what serving it needs. */
export interface PickedRoute {
  route: ModelRoute;
  provider: Provider;
  map: Mapping;
  trustedOrigins: string[];
}

/** Which vendors are configured, and the route each item takes. Built once at start. */
export interface ProviderRegistry {
  /**
   * The routes of `routes` whose provider is configured and whose mapping it has, in order; none:
   * the simulator serves. A request that starts from images takes a route's image endpoint.
   */
  candidates(routes: readonly ModelRoute[], request?: VendorRequest): PickedRoute[];
  /** A configured provider by id (for its webhooks). */
  get(id: string): Provider | undefined;
  /** The ids of the configured providers. */
  configured(): string[];
  /** The origins a provider's result URLs may come from without being public. */
  trustedOrigins(id: string): string[];
  /** The configured secrets (vendor keys), to be kept out of anything recorded. */
  secrets(): string[];
}

/** A route's key in route health and an item's skipped routes. */
export const routeKey = (route: { provider: string; endpoint: string }): string =>
  `${route.provider} ${route.endpoint}`;

/**
 * Builds the registry from the configuration: a vendor is configured when its key is set (and
 * PROVIDERS is not `simulator`). Adapters get their settings and `fetch`, nothing else.
 */
export function createProviderRegistry(
  config: Config['providers'],
  fetch: Fetch,
  hooks: ServiceHooks = {},
): ProviderRegistry {
  const registered = new Map<string, Registered>();
  const secrets: string[] = [];
  // PROVIDERS=simulator: no vendor is set up, keys or not.
  const vendors = config.mode === 'auto' ? VENDORS : [];
  for (const vendor of vendors) {
    const connected = vendor.connect(config, fetch, hooks);
    if (!connected) continue;
    registered.set(connected.provider.id, { ...connected, mappings: vendor.mappings });
    secrets.push(...connected.secrets);
  }
  return {
    candidates(routes, request) {
      const images = request !== undefined && startsFromImages(request);
      const picked: PickedRoute[] = [];
      for (const given of routes) {
        const entry = registered.get(given.provider);
        // A request that brings images goes to the route's image endpoint when it has one.
        const route =
          images && given.image_endpoint && given.image_mapping
            ? { ...given, endpoint: given.image_endpoint, mapping: given.image_mapping }
            : given;
        const mapping = route.mapping ? entry?.mappings[route.mapping] : undefined;
        if (!entry || !mapping) continue;
        const params = route.params ?? {};
        const map: Mapping = (request) => ({ ...mapping(request), ...params });
        picked.push({ route, provider: entry.provider, map, trustedOrigins: entry.trustedOrigins });
      }
      return picked;
    },
    get: (id) => registered.get(id)?.provider,
    configured: () => [...registered.keys()],
    trustedOrigins: (id) => registered.get(id)?.trustedOrigins ?? [],
    secrets: () => secrets,
  };
}

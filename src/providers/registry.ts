import type { ModelRoute } from '../catalog/models.ts';
import type { Config } from '../config.ts';
import type { WorkErrorKind } from '../lib/errors.ts';
import {
  type CredentialSource,
  type CredentialState,
  envCredentialId,
  pickWeighted,
  type StoredCredential,
} from './credentials.ts';
import type { ConnectedVendor, ServiceHooks, VendorDescriptor } from './descriptor.ts';
import type { Mapping } from './mapping.ts';
import { redact } from './policy.ts';
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
  /** The credential it is served with (a vendor's). */
  credentialId?: string;
}

/** A vendor's credential as the admin API lists it. */
export interface CredentialView {
  id: string;
  provider: string;
  source: 'api' | 'env';
  secret: string;
  baseUrl: string | null;
  weight: number;
  /** Submits it may make a minute (CREDENTIAL_RPM_WINDOW_S); null: no cap (the environment's). */
  rpm: number | null;
  /** Its jobs at the vendor at once; null: no cap (the environment's). */
  maxInFlight: number | null;
  state: CredentialState;
  reason: string | null;
  coolingUntil: Date | null;
}

/** Which vendors are configured, and the route each item takes. Built once at start. */
export interface ProviderRegistry {
  /**
   * The routes of `routes` whose provider is configured and whose mapping it has, in order; none:
   * the simulator serves. A request that starts from images takes a route's image endpoint.
   */
  candidates(routes: readonly ModelRoute[], request?: VendorRequest): PickedRoute[];
  /**
   * A configured provider by id (for its webhooks); with `credentialId`, made with that credential
   * (another active one of the vendor's when it is gone).
   */
  get(id: string, credentialId?: string | null): Provider | undefined;
  /**
   * `picked` served with another credential of its vendor (`credentialId`, one of its active ones):
   * undefined when that credential cannot be used here.
   */
  withCredential(picked: PickedRoute, credentialId: string): PickedRoute | undefined;
  /** Every credential of the configured vendors (`provider`: of that vendor), with its state. */
  credentials(provider?: string): CredentialView[];
  /**
   * A submit or job of the credential failed: one the vendor refused (kinds auth, quota) is
   * disabled; one unavailable (unavailable, rate_limited, timeout) a few times in a row cools down.
   * Resolves true when it was taken out of service and the vendor has another active credential
   * (the item goes to that one).
   */
  credentialFailed(credentialId: string, kind: WorkErrorKind, reason: string): Promise<boolean>;
  /** A submit of the credential was accepted. */
  credentialServed(credentialId: string): void;
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
  source?: CredentialSource,
): ProviderRegistry {
  const registered = new Map<string, Registered>();
  const descriptors = new Map<string, VendorDescriptor>();
  const secrets: string[] = [];
  // PROVIDERS=simulator: no vendor is set up, keys or not.
  const vendors = config.mode === 'auto' ? VENDORS : [];
  for (const vendor of vendors) {
    if (vendor.connectWith) descriptors.set(vendor.id, vendor);
    const connected = vendor.connect(config, fetch, hooks);
    if (!connected) continue;
    registered.set(connected.provider.id, { ...connected, mappings: vendor.mappings });
    secrets.push(...connected.secrets);
  }
  // The providers made with the API's credentials, by id, while their secret and base URL stay.
  const made = new Map<string, { secret: string; baseUrl: string | null; connected: ConnectedVendor }>();
  const stored = (): StoredCredential[] =>
    config.mode === 'auto' && source ? source.stored().filter((c) => descriptors.has(c.provider)) : [];
  const connectedOf = (c: StoredCredential): ConnectedVendor | undefined => {
    const had = made.get(c.id);
    if (had && had.secret === c.secret && had.baseUrl === c.baseUrl) return had.connected;
    const connected = descriptors
      .get(c.provider)
      ?.connectWith?.(config, fetch, hooks, c.secret, c.baseUrl ?? undefined);
    if (connected) made.set(c.id, { secret: c.secret, baseUrl: c.baseUrl, connected });
    return connected;
  };
  const all = (provider?: string): CredentialView[] => {
    const views: CredentialView[] = [];
    const add = (view: Omit<CredentialView, 'state' | 'reason' | 'coolingUntil'>, enabled: boolean) => {
      const health = source?.health(view.id);
      views.push(
        !enabled
          ? { ...view, state: 'disabled', reason: 'disabled by the operator', coolingUntil: null }
          : health
            ? { ...view, state: health.state, reason: health.reason, coolingUntil: health.coolingUntil }
            : { ...view, state: 'active', reason: null, coolingUntil: null },
      );
    };
    for (const [id, entry] of registered) {
      if (provider !== undefined && id !== provider) continue;
      add(
        {
          id: envCredentialId(id),
          provider: id,
          source: 'env',
          secret: entry.secrets[0] ?? '',
          baseUrl: null,
          weight: 1,
          rpm: null,
          maxInFlight: null,
        },
        true,
      );
    }
    for (const c of stored()) {
      if (provider !== undefined && c.provider !== provider) continue;
      add(
        {
          id: c.id,
          provider: c.provider,
          source: 'api',
          secret: c.secret,
          baseUrl: c.baseUrl,
          weight: c.weight,
          rpm: c.rpm,
          maxInFlight: c.maxInFlight,
        },
        c.enabled,
      );
    }
    return views;
  };
  /** The provider of a credential (by its view). */
  const providerOf = (view: CredentialView): Provider | undefined => {
    if (view.source === 'env') return registered.get(view.provider)?.provider;
    const c = stored().find((s) => s.id === view.id);
    return c ? connectedOf(c)?.provider : undefined;
  };
  // After its cool-down, a credential is checked once (the adapter's harmless call) before it serves again.
  const checking = new Set<string>();
  const checkCooled = (views: CredentialView[]) => {
    for (const view of views) {
      if (view.state !== 'cooling' || !view.coolingUntil || view.coolingUntil.getTime() > Date.now()) continue;
      if (checking.has(view.id) || !source) continue;
      const made = providerOf(view);
      if (!made) continue;
      checking.add(view.id);
      const secrets = [view.secret];
      (made.check ? made.check() : Promise.resolve({ reachable: null, detail: 'the vendor has no check' }))
        .catch((err: unknown) => ({ reachable: false, detail: err instanceof Error ? err.message : String(err) }))
        // A vendor with no call that proves a key (reachable null) is given its chance again.
        .then((found) =>
          source.checked(view.id, view.provider, found.reachable !== false, redact(found.detail, secrets)),
        )
        .catch(() => undefined)
        .finally(() => checking.delete(view.id));
    }
  };
  /** One of the vendor's active credentials, picked by weight. */
  const pick = (provider: string): { id: string; provider: Provider } | undefined => {
    const views = all(provider);
    checkCooled(views);
    const active = views.filter((c) => c.state === 'active');
    const chosen = pickWeighted(active);
    const made = chosen && providerOf(chosen);
    return chosen && made ? { id: chosen.id, provider: made } : undefined;
  };
  const vendorIds = (): Set<string> => new Set([...registered.keys(), ...stored().map((c) => c.provider)]);
  const mappingsOf = (id: string) => registered.get(id)?.mappings ?? descriptors.get(id)?.mappings;
  const originsOf = (id: string): string[] => {
    if (registered.has(id)) return registered.get(id)?.trustedOrigins ?? [];
    const c = stored().find((s) => s.provider === id);
    return (c && connectedOf(c)?.trustedOrigins) ?? [];
  };
  return {
    candidates(routes, request) {
      const images = request !== undefined && startsFromImages(request);
      const picked: PickedRoute[] = [];
      // One credential a vendor for this item (picked again at each submit).
      const credentials = new Map<string, ReturnType<typeof pick>>();
      for (const given of routes) {
        if (!credentials.has(given.provider)) credentials.set(given.provider, pick(given.provider));
        const credential = credentials.get(given.provider);
        const mappings = mappingsOf(given.provider);
        // A request that brings images goes to the route's image endpoint when it has one.
        const route =
          images && given.image_endpoint && given.image_mapping
            ? { ...given, endpoint: given.image_endpoint, mapping: given.image_mapping }
            : given;
        const mapping = route.mapping ? mappings?.[route.mapping] : undefined;
        if (!credential || !mapping) continue;
        const params = route.params ?? {};
        const map: Mapping = (request) => ({ ...mapping(request), ...params });
        picked.push({
          route,
          provider: credential.provider,
          map,
          trustedOrigins: originsOf(given.provider),
          credentialId: credential.id,
        });
      }
      return picked;
    },
    get(id, credentialId) {
      const own = credentialId ? all(id).find((c) => c.id === credentialId) : undefined;
      if (own) return providerOf(own);
      // Its credential gone: another active one. None named (a webhook, a check): the environment's first.
      return credentialId
        ? (pick(id)?.provider ?? registered.get(id)?.provider)
        : (registered.get(id)?.provider ?? pick(id)?.provider);
    },
    withCredential(picked, credentialId) {
      const view = all(picked.route.provider).find((c) => c.id === credentialId && c.state === 'active');
      const made = view && providerOf(view);
      return made ? { ...picked, provider: made, credentialId } : undefined;
    },
    credentials: all,
    async credentialFailed(credentialId, kind, reason) {
      const view = all().find((c) => c.id === credentialId);
      if (!view || !source) return false;
      if (kind === 'auth' || kind === 'quota') {
        if (view.state !== 'disabled') await source.disable(credentialId, view.provider, reason);
      } else if (kind === 'unavailable' || kind === 'rate_limited' || kind === 'timeout') {
        // Cooled only where another key of the vendor can serve meanwhile: a vendor's only key cooled
        // would take every one of its routes out at once, where the route's own breaker takes out just
        // the route that fails (an outage of one endpoint).
        const others = all(view.provider).some((c) => c.id !== credentialId && c.state === 'active');
        if (view.state !== 'active' || !others) return false;
        if (!(await source.unavailable(credentialId, view.provider, reason))) return false;
      } else {
        return false;
      }
      return all(view.provider).some((c) => c.id !== credentialId && c.state === 'active');
    },
    credentialServed: (credentialId) => source?.served(credentialId),
    configured: () => [...vendorIds()],
    trustedOrigins: originsOf,
    secrets: () => [...secrets, ...stored().map((c) => c.secret)],
  };
}

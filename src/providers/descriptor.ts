// What each vendor folder tells the registry: its id, its mappings, and how the configuration
// sets it up (the provider made from its settings when it is configured, the origins of its
// result files, its secrets). The registry loops over the list in vendors.ts and names no vendor.
import type { Config } from '../config.ts';
import type { Workflow } from './comfyui/workflows.ts';
import type { Mapping } from './mapping.ts';
import type { Fetch, Provider } from './types.ts';

type ProvidersConfig = Config['providers'];

/** What the service lends the adapters beside their settings (every fetch under the outbound policy). */
export interface ServiceHooks {
  /** ComfyUI's workflow templates, by name. */
  comfyWorkflows?: Record<string, Workflow>;
  /** Fetches an input image (for a self-hosted server to be given it). */
  fetchInput?: (url: string) => Promise<{ data: Buffer; contentType: string }>;
  /** Fetches a recording (for a vendor that is sent the bytes: a voice clone). */
  fetchSample?: (url: string) => Promise<{ data: Buffer; contentType: string }>;
}

/** A configured vendor, as the registry keeps it. */
export interface ConnectedVendor {
  provider: Provider;
  /** Result URLs under these origins are the vendor's own: fetched even when they are not public. */
  trustedOrigins: string[];
  /** The secrets of its settings (keys, tokens, header values), to be kept out of anything recorded. */
  secrets: string[];
}

/** One vendor, as its folder describes it. */
export interface VendorDescriptor {
  id: string;
  /** The input mappings a catalog route names, by name. */
  mappings: Record<string, Mapping>;
  /** The vendor made from the configuration; undefined when it is not configured. */
  connect(config: ProvidersConfig, fetch: Fetch, hooks: ServiceHooks): ConnectedVendor | undefined;
  /**
   * The vendor made with another key (and base URL, when given) than its environment's; undefined:
   * the vendor takes no credential of that kind.
   */
  connectWith?(
    config: ProvidersConfig,
    fetch: Fetch,
    hooks: ServiceHooks,
    secret: string,
    baseUrl: string | undefined,
  ): ConnectedVendor | undefined;
}

/** How a vendor is made from its own settings. */
export interface VendorSpec<Settings> {
  id: string;
  mappings: Record<string, Mapping>;
  /** The vendor's settings when the configuration sets it up; undefined: not configured. */
  settings(config: ProvidersConfig, hooks: ServiceHooks): Settings | undefined;
  /** Its provider, with the vendor's check when it has one. */
  create(settings: Settings, fetch: Fetch): Provider;
  trustedOrigins(settings: Settings): string[];
  secrets(settings: Settings): Array<string | undefined>;
  /** Its settings with `secret` as its key (and `baseUrl` as its API's base, when given). */
  withKey?(config: ProvidersConfig, hooks: ServiceHooks, secret: string, baseUrl: string | undefined): Settings;
}

/** A vendor's descriptor from its spec. */
export function defineVendor<Settings>(spec: VendorSpec<Settings>): VendorDescriptor {
  const connected = (settings: Settings, fetch: Fetch): ConnectedVendor => ({
    provider: spec.create(settings, fetch),
    trustedOrigins: spec.trustedOrigins(settings),
    secrets: spec.secrets(settings).filter((secret): secret is string => Boolean(secret)),
  });
  const withKey = spec.withKey;
  return {
    id: spec.id,
    mappings: spec.mappings,
    connect(config, fetch, hooks) {
      const settings = spec.settings(config, hooks);
      return settings === undefined ? undefined : connected(settings, fetch);
    },
    ...(withKey
      ? {
          connectWith: (config, fetch, hooks, secret, baseUrl) =>
            connected(withKey(config, hooks, secret, baseUrl), fetch),
        }
      : {}),
  };
}

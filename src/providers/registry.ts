import { createHash } from 'node:crypto';
import type { ModelRoute } from '../catalog/models.ts';
import type { Config } from '../config.ts';
import { type ComfySettings, createComfyProvider } from './comfyui/client.ts';
import { COMFYUI_MAPPINGS, type Workflow } from './comfyui/workflows.ts';
import { checkElevenLabs } from './elevenlabs/client.ts';
import { createElevenLabsProvider, ELEVENLABS_MAPPINGS } from './elevenlabs/provider.ts';
import { createFalProvider } from './fal/client.ts';
import { FAL_MAPPINGS } from './fal/mappings/index.ts';
import { jwksFromUrl } from './fal/webhook.ts';
import type { Mapping } from './mapping.ts';
import { createMeshyProvider } from './meshy/client.ts';
import { MESHY_MAPPINGS } from './meshy/mappings.ts';
import { checkOpenAiCompatible, createOpenAiCompatibleProvider } from './openai-compatible/client.ts';
import { OPENAI_COMPATIBLE_MAPPINGS } from './openai-compatible/mappings.ts';
import { createReplicateProvider } from './replicate/client.ts';
import { REPLICATE_MAPPINGS } from './replicate/mappings.ts';
import { checkSuno, createSunoProvider } from './suno/client.ts';
import { SUNO_MAPPINGS } from './suno/mappings.ts';
import { type Fetch, type Provider, startsFromImages, type VendorRequest } from './types.ts';

interface Registered {
  provider: Provider;
  mappings: Record<string, Mapping>;
  /** Result URLs under these origins are the vendor's own: fetched even when they are not public. */
  trustedOrigins: string[];
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
  local: {
    /** ComfyUI's workflow templates, by name. */
    comfyWorkflows?: Record<string, Workflow>;
    /** Fetches an input image under the outbound policy (for a self-hosted server to be given it). */
    fetchInput?: ComfySettings['fetchInput'];
    /** Fetches a recording under the outbound policy (for a vendor that is sent the bytes: a voice clone). */
    fetchSample?: (url: string) => Promise<{ data: Buffer; contentType: string }>;
  } = {},
): ProviderRegistry {
  const registered = new Map<string, Registered>();
  const secrets: string[] = [];
  const register = (entry: Registered, ...keys: Array<string | undefined>) => {
    registered.set(entry.provider.id, entry);
    for (const key of keys) if (key) secrets.push(key);
  };
  const vendors = config.mode === 'auto';
  const { fal, replicate, comfyui, openAiCompatible, suno, meshy, elevenLabs } = config;
  if (vendors && fal.key) {
    register(
      {
        provider: createFalProvider({
          key: fal.key,
          queueUrl: fal.queueUrl,
          requestTimeoutS: fal.requestTimeoutS,
          fetch,
          jwks: jwksFromUrl(fal.jwksUrl, fetch),
        }),
        mappings: FAL_MAPPINGS,
        trustedOrigins: [new URL(fal.queueUrl).origin],
      },
      fal.key,
    );
  }
  if (vendors && comfyui.url && local.fetchInput) {
    register(
      {
        provider: createComfyProvider({
          baseUrl: comfyui.url,
          headers: comfyui.headers,
          fetch,
          workflows: local.comfyWorkflows ?? {},
          fetchInput: local.fetchInput,
        }),
        mappings: COMFYUI_MAPPINGS,
        // The operator's own server: its files are fetched wherever it is.
        trustedOrigins: [new URL(comfyui.url).origin],
      },
      ...Object.values(comfyui.headers),
    );
  }
  if (vendors && openAiCompatible.configured) {
    const settings = {
      baseUrl: openAiCompatible.baseUrl,
      apiKey: openAiCompatible.apiKey,
      modelNames: openAiCompatible.modelNames,
      appName: 'genmedia',
      fetch,
    };
    register(
      {
        provider: { ...createOpenAiCompatibleProvider(settings), check: () => checkOpenAiCompatible(settings) },
        mappings: OPENAI_COMPATIBLE_MAPPINGS,
        trustedOrigins: [],
      },
      openAiCompatible.apiKey,
    );
  }
  if (vendors && elevenLabs.apiKey) {
    const settings = { apiKey: elevenLabs.apiKey, baseUrl: elevenLabs.baseUrl, fetch, fetchSample: local.fetchSample };
    register(
      {
        provider: { ...createElevenLabsProvider(settings), check: () => checkElevenLabs(settings) },
        mappings: ELEVENLABS_MAPPINGS,
        trustedOrigins: [],
      },
      elevenLabs.apiKey,
    );
  }
  if (vendors && meshy.apiKey) {
    register(
      {
        provider: createMeshyProvider({ apiKey: meshy.apiKey, baseUrl: meshy.baseUrl, fetch }),
        mappings: MESHY_MAPPINGS,
        trustedOrigins: [new URL(meshy.baseUrl).origin],
      },
      meshy.apiKey,
    );
  }
  if (vendors && suno.apiKey) {
    const settings = {
      apiKey: suno.apiKey,
      baseUrl: suno.baseUrl,
      fetch,
      // Callbacks are not signed: their URLs carry tokens made with a secret only we know.
      callbackToken: createHash('sha256').update(`suno-callback:${suno.apiKey}`).digest('hex'),
      // The vendor wants a callback URL even when it cannot reach us: one that resolves nowhere.
      fallbackCallbackUrl: 'https://callback.invalid/suno',
    };
    register(
      {
        provider: { ...createSunoProvider(settings), check: () => checkSuno(settings) },
        mappings: SUNO_MAPPINGS,
        trustedOrigins: [new URL(suno.baseUrl).origin],
      },
      suno.apiKey,
    );
  }
  if (vendors && replicate.token) {
    register(
      {
        provider: createReplicateProvider({
          token: replicate.token,
          baseUrl: replicate.baseUrl,
          webhookSecret: replicate.webhookSecret,
          fetch,
        }),
        mappings: REPLICATE_MAPPINGS,
        trustedOrigins: [new URL(replicate.baseUrl).origin],
      },
      replicate.token,
      replicate.webhookSecret,
    );
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

import { defineVendor } from '../descriptor.ts';
import { createComfyProvider } from './client.ts';
import { COMFYUI_MAPPINGS } from './workflows.ts';

/** A self-hosted ComfyUI: configured by its URL (the service must lend it a way to fetch inputs). */
export const COMFYUI_VENDOR = defineVendor({
  id: 'comfyui',
  mappings: COMFYUI_MAPPINGS,
  settings: ({ comfyui }, { comfyWorkflows, fetchInput }) =>
    comfyui.url && fetchInput
      ? { baseUrl: comfyui.url, headers: comfyui.headers, workflows: comfyWorkflows ?? {}, fetchInput }
      : undefined,
  create: (settings, fetch) => createComfyProvider({ ...settings, fetch }),
  // The operator's own server: its files are fetched wherever it is.
  trustedOrigins: (settings) => [new URL(settings.baseUrl).origin],
  secrets: (settings) => Object.values(settings.headers),
});

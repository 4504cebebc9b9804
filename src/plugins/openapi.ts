import swagger from '@fastify/swagger';
import apiReference from '@scalar/fastify-api-reference';
import type { App } from '../app-types.ts';

const DESCRIPTION = `Team-scoped API that produces images, videos, music, voices, speech, 3D models and text for credits.

Every /api route takes \`Authorization: Bearer <API key>\`; the /admin routes take the admin token instead.
Most generation is asynchronous: a request answers with a \`generation_id\` and status \`queued\`; poll
\`GET /api/v1/generations/{id}/status\` every 2-5 s (or pass a \`webhook\`) until \`completed\` or \`failed\`.

Errors are JSON \`{"error": {"code", "message", "details"?}}\` with the request id in \`x-request-id\`.`;

/**
 * The reference UI's settings: everything it shows comes from this process. No fonts or scripts
 * from the internet (its script is served from node_modules, its fonts are the browser's own), no
 * telemetry, and none of the buttons that lead to the UI vendor's hosted services (their API
 * client app, developer toolbar, AI agent, MCP generator). "Test request" stays: it calls this
 * server from the page.
 */
const REFERENCE_UI = {
  title: 'Generative Media Service API',
  withDefaultFonts: false,
  telemetry: false,
  hideClientButton: true,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  documentDownloadType: 'json',
} as const;

/**
 * Registers the OpenAPI 3.1 generator (fed by every route's schema), whose `servers` is the public
 * base URL, and the reference UI.
 */
export async function installOpenApi(app: App): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Generative Media Service API', version: '1.0.0', description: DESCRIPTION },
      servers: [{ url: app.deps.config.publicBaseUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'A team API key (`gms_...`)' },
          adminToken: { type: 'http', scheme: 'bearer', description: 'The operator admin token (`gma_...`)' },
        },
      },
      tags: [
        { name: 'Billing', description: 'Credit plans, balance and purchases' },
        { name: 'Workspaces', description: 'Groups of results inside a team' },
        { name: 'Admin', description: 'Operator API: teams, keys, credits (admin token only)' },
        { name: 'Operations', description: 'Health and readiness' },
      ],
    },
    refResolver: {
      // Shared schemas appear under their own names in components.schemas.
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });

  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());

  await app.register(apiReference, {
    routePrefix: '/docs',
    configuration: { url: '/openapi.json', pageTitle: 'Generative Media Service API', ...REFERENCE_UI },
    logLevel: 'warn',
  });
}

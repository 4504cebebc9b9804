import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { errorResponses } from '../../lib/schemas.ts';
import { handleProviderWebhook } from './service.ts';

const Params = Type.Object({ provider: Type.String({ minLength: 1, maxLength: 40 }) });
const Query = Type.Object(
  {
    item: Type.Optional(
      Type.String({ maxLength: 64, description: 'The item the job serves, as the URL given to the vendor names it' }),
    ),
    // What else a vendor adds to the URL is not ours to refuse.
  },
  { additionalProperties: true },
);
const Ack = Type.Object({ received: Type.Boolean() });

/**
 * POST /webhooks/providers/{provider}: a vendor says one of its jobs is done. Verified with the
 * vendor's own signature scheme over the raw body; a missing or bad signature, or a stale
 * timestamp, is 401 and changes nothing.
 */
export default async function providerWebhookRoutes(app: App): Promise<void> {
  await app.register(async (scope: App) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 8 * 1024 * 1024 }, (_request, body, done) =>
      done(null, body),
    );
    scope.post(
      '/webhooks/providers/:provider',
      {
        schema: {
          tags: ['Providers'],
          summary: "A vendor's completion webhook (fal.ai: Ed25519-signed)",
          params: Params,
          querystring: Query,
          response: { 200: Ack, ...errorResponses(401, 404) },
        },
      },
      async (request) => {
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        // Vendors that cannot sign (Suno) are verified by a token in the URL they were given.
        const query = request.raw.url?.split('?')[1] ?? '';
        const headers = { ...request.headers, 'x-callback-query': query };
        await handleProviderWebhook(app.deps, request.params.provider, request.query.item, headers, body);
        return { received: true };
      },
    );
  });
}

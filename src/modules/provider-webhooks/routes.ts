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
    sig: Type.Optional(
      Type.String({
        maxLength: 128,
        description: "The item's webhook credential, as the URL given to the vendor carries it",
      }),
    ),
    // What else a vendor adds to the URL is not ours to refuse.
  },
  { additionalProperties: true },
);
const Ack = Type.Object({ received: Type.Boolean() });

/**
 * POST /webhooks/providers/{provider}: a vendor says one of its jobs is done. Verified with the
 * vendor's own signature scheme over the raw body, and bound to its item by the credential of the
 * URL we gave the vendor; a missing or bad signature or credential, a stale timestamp, or a job
 * of another item than the URL's is 401 and changes nothing.
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
        const target = { item: request.query.item, credential: request.query.sig };
        await handleProviderWebhook(app.deps, request.params.provider, target, headers, body);
        return { received: true };
      },
    );
  });
}

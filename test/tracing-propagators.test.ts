// OTEL_PROPAGATORS=none: spans are still exported, but no call leaving the service (to a vendor,
// to a webhook receiver) carries the W3C trace context. In a file of its own: tracing is set up
// once per process, and test/tracing.test.ts sets it up with propagation.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type FakeFal, startFakeFal } from './fakes/fal.ts';
import { type FakeCollector, startFakeCollector } from './fakes/otlp.ts';
import { startWebhookReceiver, type WebhookReceiver } from './fakes/webhook-receiver.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { waitForGeneration } from './media-helpers.ts';

describe('OTEL_PROPAGATORS=none: traces are exported, nothing outside is told them', () => {
  let collector: FakeCollector;
  let fal: FakeFal;
  let receiver: WebhookReceiver;
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    collector = await startFakeCollector();
    fal = await startFakeFal();
    receiver = await startWebhookReceiver();
    server = await startTestServer({
      env: {
        ...fal.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_BSP_SCHEDULE_DELAY: '50',
        OTEL_PROPAGATORS: 'none',
      },
    });
    team = await createTeam(server, 100);
  });
  after(async () => {
    await server.close();
    await fal.close();
    receiver.server.close();
    await collector.close();
  });

  test('the vendor call and the webhook carry no traceparent; their spans are still exported', async () => {
    const traceId = randomBytes(16).toString('hex');
    const created = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
      body: { prompt: 'an untold fox', model: 'flux-1-schnell', webhook: receiver.url },
    });
    assert.equal(created.status, 200, created.text);
    const done = await waitForGeneration(server, team.key, created.body.generation_id, 30_000);
    assert.equal(done.status, 'completed');
    await collector.waitFor((spans) =>
      ['generate_content fal-ai/flux/schnell', 'webhook POST'].every((name) =>
        spans.some((s) => s.traceId === traceId && s.name === name),
      ),
    );
    const sent = fal.submissions.find((x) => x.input.prompt === 'an untold fox');
    assert.ok(sent, 'fal was asked');
    assert.equal(sent.headers.traceparent, undefined);
    assert.equal(receiver.bodies.length, 1);
    assert.deepEqual(receiver.traceparents, [undefined]);
  });
});

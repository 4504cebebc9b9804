// OpenTelemetry traces through the whole service, exported over OTLP/HTTP (JSON) to a fake
// collector on 127.0.0.1 as an operator's OTEL_EXPORTER_OTLP_ENDPOINT would send them: an API
// process (no worker) and a worker process on one database, images made by the fake fal queue
// (finished by its webhook) and delivered to the team's webhook, one trace per generation.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type FakeFal, startFakeFal } from './fakes/fal.ts';
import { type FakeOpenAiCompatible, startFakeOpenAiCompatible } from './fakes/openai-compatible.ts';
import { type FakeCollector, type ReceivedSpan, startFakeCollector } from './fakes/otlp.ts';
import { startWebhookReceiver, type WebhookReceiver } from './fakes/webhook-receiver.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { waitForGeneration } from './media-helpers.ts';

const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;
const ERROR = 2;

const one = (spans: ReceivedSpan[], name: string): ReceivedSpan => {
  const found = spans.filter((s) => s.name === name);
  assert.equal(found.length, 1, `one span named ${name}: ${spans.map((s) => s.name).join(', ')}`);
  return found[0] as ReceivedSpan;
};

describe('traces across the API, the worker, the vendor, storage and webhooks', () => {
  let collector: FakeCollector;
  let fal: FakeFal;
  let chat: FakeOpenAiCompatible;
  let receiver: WebhookReceiver;
  let api: TestServer;
  let worker: TestServer;
  let team: TeamFixture;

  before(async () => {
    collector = await startFakeCollector();
    fal = await startFakeFal();
    chat = await startFakeOpenAiCompatible();
    receiver = await startWebhookReceiver();
    const env = {
      ...fal.env,
      OPENAI_COMPATIBLE_BASE_URL: `${chat.url}/v1`,
      OPENAI_COMPATIBLE_MODELS: JSON.stringify({ 'openai/gpt-4o-mini': 'llama3.2:3b' }),
      ITEM_MAX_ATTEMPTS: '1',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_SERVICE_NAME: 'genmedia-traced',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    };
    // The API runs no jobs: every job below is run by the other process, from its queue.
    api = await startTestServer({ env, worker: false });
    worker = await startTestServer({ env, databaseUrl: api.databaseUrl, adminToken: api.adminToken });
    team = await createTeam(api, 1000);
  });
  after(async () => {
    // The worker first: the API's close drops the database they share.
    await worker.close();
    await api.close();
    await fal.close();
    await chat.close();
    receiver.server.close();
    await collector.close();
  });

  test('one generation is one trace: request, acceptance, jobs, vendor call, storage copy, webhook', async () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    const created = await call<{ generation_id: string }>(api, 'POST', '/api/v1/images/generate', {
      token: team.key,
      headers: { traceparent: `00-${traceId}-${callerSpan}-01` },
      body: { prompt: 'a traced fox', model: 'flux-1-schnell', webhook: receiver.url },
    });
    assert.equal(created.status, 200, created.text);
    const id = created.body.generation_id;
    const done = await waitForGeneration(api, team.key, id, 30_000);
    assert.equal(done.status, 'completed');

    const inTrace = () => collector.spans.filter((s) => s.traceId === traceId);
    const expected = [
      'POST /api/v1/images/generate',
      'accept generation',
      'process generation_item',
      'generate_content fal-ai/flux/schnell',
      'process vendor_poll',
      'storage copy',
      'process webhook_deliver',
      'webhook POST',
    ];
    await collector.waitFor(() => expected.every((name) => inTrace().some((s) => s.name === name)));
    const spans = inTrace();

    const request = one(spans, 'POST /api/v1/images/generate');
    assert.equal(request.kind, SERVER);
    assert.equal(request.parentSpanId, callerSpan, "the caller's traceparent is continued");
    assert.equal(request.attributes['http.request.method'], 'POST');
    assert.equal(request.attributes['http.route'], '/api/v1/images/generate');
    assert.equal(request.attributes['http.response.status_code'], 200);

    const accept = one(spans, 'accept generation');
    assert.equal(accept.parentSpanId, request.spanId);
    assert.equal(accept.attributes['genmedia.generation.id'], id);
    assert.equal(accept.attributes['genmedia.team.id'], team.id);
    assert.equal(accept.attributes['gen_ai.request.model'], 'flux-1-schnell');

    const job = one(spans, 'process generation_item');
    assert.equal(job.kind, CONSUMER);
    assert.equal(job.parentSpanId, accept.spanId, 'the job continues the trace stored with its item');
    assert.equal(job.attributes['messaging.destination.name'], 'generation_item');
    assert.equal(job.attributes['genmedia.job.attempt'], 1);

    // A poll may also ask fal (when its webhook is slower than the first poll): the submit is one.
    const submit = one(
      spans.filter((s) => s.attributes['genmedia.vendor.call'] === 'submit'),
      'generate_content fal-ai/flux/schnell',
    );
    assert.equal(submit.kind, CLIENT);
    assert.equal(submit.parentSpanId, job.spanId);
    assert.equal(submit.attributes['gen_ai.operation.name'], 'generate_content');
    assert.equal(submit.attributes['gen_ai.provider.name'], 'fal');
    assert.equal(submit.attributes['gen_ai.request.model'], 'fal-ai/flux/schnell');
    assert.equal(submit.attributes['genmedia.model'], 'flux-1-schnell');
    assert.equal(submit.attributes['genmedia.vendor.call'], 'submit');
    assert.equal(submit.attributes['genmedia.vendor.attempt'], 1);
    assert.equal(submit.attributes['genmedia.vendor.outcome'], 'accepted');
    // The vendor is told the call's trace context (W3C), as the receiver of the webhook below is.
    const sent = fal.submissions.find((x) => x.input.prompt === 'a traced fox');
    assert.equal(sent?.headers.traceparent, `00-${traceId}-${submit.spanId}-01`);

    // fal's webhook (a request of its own, in a trace of its own) queued the poll that finished it:
    // the poll still belongs to the generation's trace.
    const polls = spans.filter((s) => s.name === 'process vendor_poll');
    assert.ok(polls.length >= 1);
    for (const poll of polls) assert.equal(poll.parentSpanId, accept.spanId);
    const copy = one(spans, 'storage copy');
    const poll = polls.find((p) => p.spanId === copy.parentSpanId);
    assert.ok(poll, 'the poll that finished the item copied its file');
    assert.equal(copy.attributes['genmedia.storage.content_type'], 'image/png');

    const delivery = one(spans, 'process webhook_deliver');
    assert.equal(delivery.kind, CONSUMER);
    assert.equal(delivery.parentSpanId, poll.spanId, 'the webhook is queued by the job that finished the item');
    const post = one(spans, 'webhook POST');
    assert.equal(post.kind, CLIENT);
    assert.equal(post.parentSpanId, delivery.spanId);
    assert.equal(post.attributes['http.response.status_code'], 200);
    assert.equal(post.attributes['server.address'], '127.0.0.1');
    assert.equal(post.attributes['genmedia.webhook.attempt'], 1);
    assert.ok(receiver.bodies.some((b) => b.includes(id)));
    assert.equal(
      receiver.traceparents[receiver.bodies.findIndex((b) => b.includes(id))],
      `00-${traceId}-${post.spanId}-01`,
    );

    for (const span of spans) {
      assert.equal(span.resource['service.name'], 'genmedia-traced');
      assert.ok(['api', 'all'].includes(String(span.resource['genmedia.role'])));
      assert.notEqual(span.status.code, ERROR, `${span.name} did not fail`);
    }
    assert.ok(collector.contentTypes.every((t) => t === 'application/json'));
    const exported = JSON.stringify(collector.spans);
    assert.ok(!exported.includes(team.key), 'no API key in any span');
    assert.ok(!exported.includes('fake-fal-key'), 'no vendor key in any span');
    assert.ok(!exported.includes('sig='), 'no webhook credential in any span');
  });

  test("a vendor's refusal fails its span, with the credential it quoted redacted", async () => {
    const created = await call<{ generation_id: string }>(api, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'a leaky fox [fal:echo-key]', model: 'flux-1-schnell' },
    });
    assert.equal(created.status, 200, created.text);
    const done = await waitForGeneration(api, team.key, created.body.generation_id, 30_000);
    assert.equal(done.status, 'failed');
    const accepted = () =>
      collector.spans.find((s) => s.attributes['genmedia.generation.id'] === created.body.generation_id);
    await collector.waitFor(() => {
      const trace = accepted()?.traceId;
      return collector.spans.some((s) => s.traceId === trace && s.name === 'process generation_item');
    });
    const trace = accepted()?.traceId;
    const spans = collector.spans.filter((s) => s.traceId === trace);
    const submit = one(spans, 'generate_content fal-ai/flux/schnell');
    assert.equal(submit.status.code, ERROR);
    assert.match(submit.status.message ?? '', /\[redacted\]/);
    assert.ok(!JSON.stringify(submit).includes('fake-fal-key'));
    assert.ok(
      submit.events.some((e) => e.name === 'exception'),
      'the error is recorded as an exception event',
    );
  });

  test('a chat answered in the request: its span has the GenAI chat attributes and the token usage', async () => {
    const traceId = randomBytes(16).toString('hex');
    const answered = await call<{ generation_id: string }>(api, 'POST', '/api/v1/text/generate', {
      token: team.key,
      headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
      body: { prompt: 'Name a traced fox.', model: 'openai/gpt-4o-mini' },
    });
    assert.equal(answered.status, 200, answered.text);
    const sent = chat.submissions.at(-1);
    assert.ok(sent, 'the chat server was asked');
    // The request's span ends once its answer is sent, after the spans of its work.
    await collector.waitFor((spans) =>
      spans.some((s) => s.traceId === traceId && s.name === 'POST /api/v1/text/generate'),
    );
    const spans = collector.spans.filter((s) => s.traceId === traceId);
    const request = one(spans, 'POST /api/v1/text/generate');
    const accept = one(spans, 'accept generation');
    assert.equal(accept.parentSpanId, request.spanId);
    const chatSpan = spans.find((s) => s.attributes['gen_ai.operation.name'] === 'chat') as ReceivedSpan;
    assert.equal(chatSpan.kind, CLIENT);
    assert.equal(chatSpan.attributes['gen_ai.provider.name'], 'openai-compatible');
    assert.equal(chatSpan.attributes['genmedia.model'], 'openai/gpt-4o-mini');
    assert.equal(chatSpan.attributes['gen_ai.request.model'], 'openai/gpt-4o-mini');
    const input = chatSpan.attributes['gen_ai.usage.input_tokens'];
    const output = chatSpan.attributes['gen_ai.usage.output_tokens'];
    assert.ok(typeof input === 'number' && input > 0, `input tokens: ${input}`);
    assert.ok(typeof output === 'number' && output > 0, `output tokens: ${output}`);
    let parent: ReceivedSpan | undefined = chatSpan;
    while (parent && parent !== request) parent = spans.find((s) => s.spanId === parent?.parentSpanId);
    assert.equal(parent, request, 'the chat call is within the request');
    // A self-hosted upstream that records trace context joins the trace under the chat call.
    assert.equal(sent.headers.traceparent, `00-${traceId}-${chatSpan.spanId}-01`);
  });
});

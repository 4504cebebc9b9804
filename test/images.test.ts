import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, type ErrorReply, type StatusRecord, waitForGeneration } from './media-helpers.ts';

async function fetchImage(url: string) {
  const r = await fetch(url);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'image/png');
  assert.match(r.headers.get('cache-control') ?? '', /immutable/);
  const bytes = Buffer.from(await r.arrayBuffer());
  const meta = await sharp(bytes).metadata();
  return { bytes, meta };
}

describe('image generation', () => {
  let server: TestServer;
  let team: TeamFixture;
  let models: { image: Map<string, number> };
  let refServer: Server;
  let refBase: string;

  before(async () => {
    server = await startTestServer();
    team = await createTeam(server, 100_000);
    const catalog = server.app.deps.catalog;
    models = { image: new Map(catalog.image.map((m) => [m.id, m.price.credits_per_image])) };
    // A reference image served over HTTP: left half white, right half black.
    const left = await sharp({ create: { width: 128, height: 128, channels: 3, background: '#ffffff' } })
      .extend({ right: 128, background: '#000000' })
      .png()
      .toBuffer();
    refServer = createServer((req, res) => {
      if (req.url === '/ref.png') {
        res.writeHead(200, { 'content-type': 'image/png' }).end(left);
      } else if (req.url === '/style.safetensors') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(64, 1));
      } else if (req.url === '/not-an-image.png') {
        res.writeHead(200, { 'content-type': 'image/png' }).end('hello');
      } else res.writeHead(404).end();
    });
    await new Promise<void>((r) => refServer.listen(0, '127.0.0.1', r));
    refBase = `http://127.0.0.1:${(refServer.address() as AddressInfo).port}`;
  });
  after(async () => {
    refServer.close();
    await server.close();
  });

  test('text-to-image runs to completed with decodable PNGs of the requested aspect ratio', async () => {
    const before = await balanceOf(server, team.key);
    const r = await call<Record<string, unknown>>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'a red fox in a snowy forest', batch: 2, settings: { aspect_ratio: '16:9' } },
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.body).sort(), [
      'credits_used',
      'estimated_time',
      'generation_id',
      'images',
      'status',
    ]);
    assert.equal(r.body.status, 'queued');
    assert.match(String(r.body.generation_id), /^gen_[0-9a-z]{26}$/);
    const price = models.image.get('flux-1-dev') ?? 0;
    assert.equal(r.body.credits_used, price * 2);
    assert.equal(await balanceOf(server, team.key), before - price * 2);

    const status = await waitForGeneration(server, team.key, String(r.body.generation_id));
    assert.equal(status.status, 'completed');
    assert.equal(status.total_items, 2);
    assert.equal(status.completed_items, 2);
    assert.equal(status.failed_items, 0);
    assert.equal(status.credits_used, price * 2);
    assert.equal(status.result_urls.length, 2);
    for (const item of status.items) {
      assert.equal(item.type, 'image');
      assert.equal(item.status, 'COMPLETED');
      assert.match(item.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    const [a, b] = await Promise.all(status.result_urls.map(fetchImage));
    assert.equal(a?.meta.format, 'png');
    const ratio = (a?.meta.width ?? 0) / (a?.meta.height ?? 1);
    assert.ok(Math.abs(ratio - 16 / 9) < 0.03, `ratio ${ratio}`);
    assert.ok(!a?.bytes.equals(b?.bytes ?? Buffer.alloc(0)), 'the two batch items are the same image');
  });

  test('a batch with one forced failure refunds exactly that item', async () => {
    const before = await balanceOf(server, team.key);
    const r = await call<{ generation_id: string; credits_used: number }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'three cats [simulate:fail:2]', batch: 3 },
    });
    assert.equal(r.status, 200);
    const price = models.image.get('flux-1-dev') ?? 0;
    const status = await waitForGeneration(server, team.key, r.body.generation_id);
    assert.equal(status.status, 'completed');
    assert.equal(status.completed_items, 2);
    assert.equal(status.failed_items, 1);
    assert.deepEqual(
      status.items.map((i) => i.status),
      ['COMPLETED', 'FAILED', 'COMPLETED'],
    );
    assert.equal(status.items[1]?.url, null);
    assert.equal(status.credits_used, price * 2);
    assert.equal(status.result_urls.length, 2);
    assert.equal(await balanceOf(server, team.key), before - price * 2);
  });

  test('a generation whose every item fails ends failed with everything refunded', async () => {
    const before = await balanceOf(server, team.key);
    const r = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'nothing [simulate:fail]', batch: 2 },
    });
    const status = await waitForGeneration(server, team.key, r.body.generation_id);
    assert.equal(status.status, 'failed');
    assert.equal(status.failed_items, 2);
    assert.equal(status.credits_used, 0);
    assert.deepEqual(status.result_urls, []);
    assert.equal(await balanceOf(server, team.key), before);
  });

  test('the same prompt and settings give the same image; another prompt a different one', async () => {
    const make = async (prompt: string) => {
      const r = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
        token: team.key,
        body: { prompt, model: 'flux-1-schnell' },
      });
      const s = await waitForGeneration(server, team.key, r.body.generation_id);
      return (await fetchImage(s.result_urls[0] ?? '')).bytes;
    };
    const one = await make('a lighthouse at dusk');
    const two = await make('a lighthouse at dusk');
    const other = await make('a bowl of green apples');
    assert.ok(one.equals(two));
    assert.ok(!one.equals(other));
  });

  test('image-to-image fetches the reference and derives the result from it', async () => {
    const r = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'make it painterly', model: 'flux-1-dev', images: [`${refBase}/ref.png`] },
    });
    assert.equal(r.status, 200, r.text);
    const status = await waitForGeneration(server, team.key, r.body.generation_id);
    assert.equal(status.status, 'completed');
    const { bytes } = await fetchImage(status.result_urls[0] ?? '');
    const { data, info } = await sharp(bytes).greyscale().raw().toBuffer({ resolveWithObject: true });
    let left = 0;
    let right = 0;
    for (let y = 0; y < info.height; y++) {
      for (let x = 0; x < info.width; x++) {
        const v = data[y * info.width + x] ?? 0;
        if (x < info.width / 2) left += v;
        else right += v;
      }
    }
    assert.ok(left > right * 1.2, `left ${left} right ${right}`);
  });

  test('an undecodable reference fails the item and refunds it', async () => {
    const before = await balanceOf(server, team.key);
    const r = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'x', images: [`${refBase}/not-an-image.png`] },
    });
    const status = await waitForGeneration(server, team.key, r.body.generation_id);
    assert.equal(status.status, 'failed');
    assert.equal(await balanceOf(server, team.key), before);
  });

  test('the legacy init_image works as a single reference', async () => {
    const r = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'x', init_image: `${refBase}/ref.png` },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal((await waitForGeneration(server, team.key, r.body.generation_id)).status, 'completed');
  });

  test('model, LoRA, aspect ratio and step rules are 400s that charge nothing', async () => {
    const before = await balanceOf(server, team.key);
    const catalog = server.app.deps.catalog;
    const noLora = catalog.image.find((m) => !m.capabilities.supports_lora);
    const lora = catalog.image.find((m) => m.capabilities.supports_lora && m.capabilities.lora_types?.length !== 6);
    const missingType = ['sd-1.5', 'sdxl', 'pony', 'flux-1-dev', 'flux-1-schnell', 'qwen-image'].find(
      (t) => !lora?.capabilities.lora_types?.includes(t as never),
    );
    const narrow = catalog.image.find((m) => !m.settings.aspect_ratios.includes('21:9'));
    const cases: Array<[unknown, number, string, string?]> = [
      [{ prompt: 'x', model: 'no-such-model' }, 400, 'model_not_found', 'model'],
      [
        { prompt: 'x', model: noLora?.id, lora_url: 'https://example.com/a.safetensors' },
        400,
        'invalid_request',
        'lora_url',
      ],
      [{ prompt: 'x', model: lora?.id, lora_url: 'https://example.com/a.bin' }, 400, 'invalid_request', 'lora_url'],
      [
        { prompt: 'x', model: lora?.id, lora_url: 'https://example.com/a.safetensors', lora_type: missingType },
        400,
        'invalid_request',
        'lora_type',
      ],
      [{ prompt: 'x', lora_type: 'sdxl' }, 400, 'invalid_request', 'lora_type'],
      [
        { prompt: 'x', lora_url: 'https://example.com/a.safetensors', lora_type: 'sd-2' },
        400,
        'invalid_request',
        'lora_type',
      ],
      [
        { prompt: 'x', model: narrow?.id, settings: { aspect_ratio: '21:9' } },
        400,
        'invalid_request',
        'settings.aspect_ratio',
      ],
      [
        { prompt: 'x', model: 'flux-1-schnell', settings: { num_inference_steps: 199 } },
        400,
        'invalid_request',
        'settings.num_inference_steps',
      ],
      [{ prompt: '' }, 400, 'invalid_request', 'prompt'],
      [{ prompt: 'x', batch: 0 }, 400, 'invalid_request', 'batch'],
      [{ prompt: 'x', batch: 11 }, 400, 'invalid_request', 'batch'],
      [{ prompt: 'x', batch: '2' }, 400, 'invalid_request', 'batch'],
      [{ prompt: 'x', images: ['file:///etc/passwd'] }, 400, 'invalid_request', 'images[0]'],
      [{ prompt: 'x', webhook: 'not a url' }, 400, 'invalid_request', 'webhook'],
      [{ prompt: 'x', influencer_id: 'inf_00000000000000000000000000' }, 404, 'not_found'],
      [{ prompt: 'x', workspace_id: 'ws_00000000000000000000000000' }, 404, 'not_found'],
    ];
    for (const [body, status, code, field] of cases) {
      const r = await call<ErrorReply>(server, 'POST', '/api/v1/images/generate', { token: team.key, body });
      assert.equal(r.status, status, `${JSON.stringify(body)} → ${r.text}`);
      assert.equal(r.body.error.code, code);
      if (field)
        assert.ok(
          r.body.error.details?.some((d) => d.field === field),
          `${field} in ${r.text}`,
        );
    }
    assert.equal(await balanceOf(server, team.key), before);
  });

  test('a LoRA request on a LoRA model defaults lora_type to flux-1-dev when the model takes it', async () => {
    const r = await call(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'x', model: 'flux-1-dev', lora_url: `${refBase}/style.safetensors` },
    });
    assert.equal(r.status, 200, r.text);
  });

  test("another team's workspace is 403 and another team's generation is 404", async () => {
    const other = await createTeam(server, 1000);
    const ws = await call<{ id: string }>(server, 'POST', '/api/v1/workspaces', {
      token: other.key,
      body: { name: 'w' },
    });
    const forbidden = await call<ErrorReply>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'x', workspace_id: ws.body.id },
    });
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.body.error.code, 'forbidden');

    const mine = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: other.key,
      body: { prompt: 'x', workspace_id: ws.body.id },
    });
    assert.equal(mine.status, 200);
    const peek = await call<ErrorReply>(server, 'GET', `/api/v1/generations/${mine.body.generation_id}/status`, {
      token: team.key,
    });
    assert.equal(peek.status, 404);
    assert.equal(peek.body.error.code, 'not_found');
    const unknown = await call(server, 'GET', '/api/v1/generations/gen_00000000000000000000000000/status', {
      token: team.key,
    });
    assert.equal(unknown.status, 404);
  });

  test('a team without enough credits gets 402 and nothing is written', async () => {
    const poor = await createTeam(server, 3);
    const r = await call<ErrorReply>(server, 'POST', '/api/v1/images/generate', {
      token: poor.key,
      body: { prompt: 'x', batch: 2 },
    });
    assert.equal(r.status, 402);
    assert.equal(r.body.error.code, 'insufficient_credits');
    assert.match(r.body.error.message, /needs 8 credits and the team has 3/);
    const figures = r.body.error as unknown as { needed: number; available: number };
    assert.deepEqual([figures.needed, figures.available], [8, 3], 'the figures, machine-readable');
    assert.equal(await balanceOf(server, poor.key), 3);
    const { rows } = await server.pool.query('select count(*)::int as n from generations where team_id = $1', [
      poor.id,
    ]);
    assert.equal(rows[0].n, 0);
  });

  test('50 parallel requests against a balance that covers 10 accept exactly 10', async () => {
    const price = models.image.get('flux-1-dev') ?? 0;
    const racer = await createTeam(server, price * 10);
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        call(server, 'POST', '/api/v1/images/generate', { token: racer.key, body: { prompt: 'race' } }),
      ),
    );
    assert.equal(results.filter((r) => r.status === 200).length, 10);
    assert.equal(results.filter((r) => r.status === 402).length, 40);
    assert.equal(await balanceOf(server, racer.key), 0);
    const ledger = await call<Array<{ amount: number; balance_after: number }>>(
      server,
      'GET',
      `/admin/v1/teams/${racer.id}/ledger?limit=500`,
      { token: server.adminToken },
    );
    assert.equal(ledger.body.length, 11);
    assert.equal(
      ledger.body.reduce((s, e) => s + e.amount, 0),
      0,
    );
    assert.ok(ledger.body.every((e) => e.balance_after >= 0));
  });

  describe('face and edit', () => {
    test('generate-face makes batch images each from a different model, reproducible by seed', async () => {
      const r = await call<Record<string, unknown>>(server, 'POST', '/api/v1/images/generate-face', {
        token: team.key,
        body: { prompt: 'portrait', seed: 42, gender: 'female', hair_color: 'red' },
      });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(Object.keys(r.body).sort(), [
        'batch',
        'credits_used',
        'estimated_time',
        'generation_id',
        'status',
      ]);
      assert.equal(r.body.batch, 4);
      const first = await waitForGeneration(server, team.key, String(r.body.generation_id));
      assert.equal(first.completed_items, 4);
      const { rows } = await server.pool.query(
        'select count(distinct model)::int as n from generation_items where generation_id = $1',
        [r.body.generation_id],
      );
      assert.equal(rows[0].n, 4);

      const again = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate-face', {
        token: team.key,
        body: { prompt: 'portrait', seed: 42, gender: 'female', hair_color: 'red' },
      });
      const second = await waitForGeneration(server, team.key, again.body.generation_id);
      const bytes = async (s: StatusRecord) => Promise.all(s.result_urls.map(async (u) => (await fetchImage(u)).bytes));
      const [a, b] = await Promise.all([bytes(first), bytes(second)]);
      assert.ok(a.every((img, i) => img.equals(b[i] ?? Buffer.alloc(0))));
    });

    test('generate-face takes a batch of 1-10', async () => {
      for (const [batch, status] of [
        [1, 200],
        [10, 200],
        [0, 400],
        [11, 400],
      ] as const) {
        const r = await call(server, 'POST', '/api/v1/images/generate-face', {
          token: team.key,
          body: { prompt: 'p', batch },
        });
        assert.equal(r.status, status, `batch ${batch}`);
      }
    });

    test('edit returns image_id and honours width/height only on models with custom dimensions', async () => {
      const catalog = server.app.deps.catalog;
      const custom = catalog.edit.find((m) => m.capabilities.custom_dimensions);
      const fixed = catalog.edit.find((m) => !m.capabilities.custom_dimensions);
      const run = async (model: string | undefined) => {
        const r = await call<{ generation_id: string; image_id: string }>(server, 'POST', '/api/v1/images/edit', {
          token: team.key,
          body: { image_url: `${refBase}/ref.png`, prompt: 'add a hat', model, width: 512, height: 768 },
        });
        assert.equal(r.status, 200, r.text);
        const s = await waitForGeneration(server, team.key, r.body.generation_id);
        assert.equal(s.items[0]?.id, r.body.image_id);
        return (await fetchImage(s.result_urls[0] ?? '')).meta;
      };
      const honoured = await run(custom?.id);
      assert.deepEqual([honoured.width, honoured.height], [512, 768]);
      const ignored = await run(fixed?.id);
      const ratio = (ignored.width ?? 0) / (ignored.height ?? 1);
      assert.ok(Math.abs(ratio - 2) < 0.05, `keeps the 2:1 source proportions, got ${ratio}`);

      const half = await call<ErrorReply>(server, 'POST', '/api/v1/images/edit', {
        token: team.key,
        body: { image_url: `${refBase}/ref.png`, prompt: 'x', width: 512 },
      });
      assert.equal(half.status, 400);
      assert.equal(half.body.error.details?.[0]?.field, 'height');
      const unknown = await call<ErrorReply>(server, 'POST', '/api/v1/images/edit', {
        token: team.key,
        body: { image_url: `${refBase}/ref.png`, prompt: 'x', model: 'nope' },
      });
      assert.equal(unknown.body.error.code, 'model_not_found');
    });
  });
});

// The console's playground over HTTP: the list of generation endpoints, a form built from each
// endpoint's request schema with a model picker that shows prices, a quote that is the API's own,
// and submitting: the live status of an image generation (one charge per form, however many
// submits), a text answer in place, and the CSRF check.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Browser } from './console-helpers.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, waitForGeneration } from './media-helpers.ts';

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const decodeEntities = (text: string) => text.replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e] ?? e);
const attr = (tag: string, name: string) => {
  const found = new RegExp(`\\s${name}(?:="([^"]*)")?(?=[\\s>])`).exec(tag);
  return found ? decodeEntities(found[1] ?? '') : undefined;
};

/** What a browser would send for the page's first form as it is (its controls' initial values). */
function formOf(page: string): Record<string, string> {
  const form = /<form [^>]*hx-post="[^"]*\/submit"[^>]*>([\s\S]*?)<\/form>/.exec(page)?.[1] ?? '';
  const fields: Record<string, string> = {};
  for (const [tag] of form.matchAll(/<input [^>]*>/g)) {
    const name = attr(tag, 'name');
    if (!name) continue;
    if (attr(tag, 'type') === 'checkbox' && attr(tag, 'checked') === undefined) continue;
    fields[name] = attr(tag, 'value') ?? '';
  }
  for (const [, tag, text] of form.matchAll(/(<textarea [^>]*>)([\s\S]*?)<\/textarea>/g)) {
    const name = attr(tag as string, 'name');
    if (name) fields[name] = decodeEntities(text as string);
  }
  for (const [, tag, options] of form.matchAll(/(<select [^>]*>)([\s\S]*?)<\/select>/g)) {
    const name = attr(tag as string, 'name');
    const all = [...(options as string).matchAll(/<option [^>]*>/g)].map(([o]) => o);
    const chosen = all.find((o) => attr(o, 'selected') !== undefined) ?? all[0];
    if (name && chosen) fields[name] = attr(chosen, 'value') ?? '';
  }
  return fields;
}

const HTMX = { 'hx-request': 'true' };

describe('the console playground', () => {
  let server: TestServer;
  let team: TeamFixture;
  let browser: Browser;

  before(async () => {
    server = await startTestServer();
    team = await createTeam(server, 1000, 'playground team');
    browser = new Browser(server);
    await browser.signIn(team.key);
  });
  after(async () => {
    await server.close();
  });

  test('lists every generation endpoint, each with a form that renders', async () => {
    const list = await browser.request('GET', '/console/playground');
    assert.equal(list.status, 200);
    const links = [...list.text.matchAll(/href="(\/console\/playground\/[^"]+)"/g)].map((m) => m[1] as string);
    for (const slug of [
      'images-generate',
      'images-generate-face',
      'images-edit',
      'videos-generate',
      'videos-lipsync',
      'videos-motion-control',
      'videos-reference-to-video',
      'videos-talking-head',
      'videos-upscale',
      'videos-wan-2.2-lora',
      'music-generate',
      'models-3d-generate',
      'text-generate',
      'text-to-speech',
      'voice-clone',
      'voice-design',
      'influencers-create',
      'influencers-generate',
      'influencers-video',
    ]) {
      assert.ok(links.includes(`/console/playground/${slug}`), `a link to ${slug}`);
    }
    for (const link of links) {
      const form = await browser.request('GET', link);
      assert.equal(form.status, 200, link);
      assert.match(form.text, /<button [^>]*hx-post="[^"]+\/quote"[^>]*>Quote<\/button>/, link);
      assert.doesNotMatch(form.text, /name="webhook"/, `${link}: no webhook field`);
      assert.doesNotMatch(form.text, / style="| on[a-z]+="|<script>/, `${link}: nothing inline for the CSP`);
      // Every visible control has its label.
      for (const [tag] of form.text.matchAll(/<(?:input|select|textarea) [^>]*>/g)) {
        if (attr(tag, 'type') === 'hidden') continue;
        const id = attr(tag, 'id');
        assert.ok(id && form.text.includes(`<label for="${id}">`), `${link}: a label for ${tag}`);
      }
    }
    const missing = await browser.request('GET', '/console/playground/nothing-here');
    assert.equal(missing.status, 404);
  });

  test("the image form follows the endpoint's schema; its model picker shows prices and settings", async () => {
    const form = await browser.request('GET', '/console/playground/images-generate');
    assert.match(form.text, /<textarea [^>]*name="prompt"[^>]*required[^>]*>/);
    const batch = /<input [^>]*name="batch"[^>]*>/.exec(form.text)?.[0] ?? '';
    assert.equal(attr(batch, 'type'), 'number');
    assert.equal(attr(batch, 'min'), '1');
    assert.equal(attr(batch, 'max'), '10');
    assert.equal(attr(batch, 'value'), '1', 'the default is filled in');
    assert.match(form.text, /<fieldset id="f-settings"><legend>Settings<\/legend>/);
    assert.match(form.text, /name="settings\.aspect_ratio"/);
    assert.match(form.text, /name="settings\.num_inference_steps"/);
    assert.match(form.text, /<select [^>]*name="lora_type"/, 'an enum is a select');
    assert.match(form.text, /<textarea [^>]*name="images"/, 'a list of URLs is a text area');
    const picker = /<select [^>]*name="model"[^>]*>([\s\S]*?)<\/select>/.exec(form.text);
    assert.ok(picker, 'a model select');
    assert.match(picker[0], /hx-get="\/console\/playground\/images-generate\/model"/);
    assert.match(
      picker[1] ?? '',
      /<option value="flux-1-dev" selected>FLUX\.1 \[dev\] · 4 credits per image · default<\/option>/,
    );
    assert.ok((picker[1]?.match(/credits? per image/g) ?? []).length > 10, 'every model with its price');
    assert.match(form.text, /<div id="model-details"[^>]*>[\s\S]*FLUX\.1 \[dev\][\s\S]*max_inference_steps/);
    const details = await browser.request(
      'GET',
      '/console/playground/images-generate/model?model=flux-1-schnell',
      undefined,
      HTMX,
    );
    assert.equal(details.status, 200);
    assert.match(details.text, /FLUX\.1 \[schnell\]/);
    assert.match(details.text, /credits? per image/);
    assert.doesNotMatch(details.text, /<html/, 'a fragment');
  });

  test('a quote is the API quote and charges nothing; an invalid form shows its field errors', async () => {
    const page = await browser.request('GET', '/console/playground/images-generate');
    const fields = { ...formOf(page.text), prompt: 'a quoted lighthouse', batch: '3', 'settings.aspect_ratio': '16:9' };
    const quoted = await browser.request('POST', '/console/playground/images-generate/quote', fields, HTMX);
    assert.equal(quoted.status, 200);
    const api = await call<{ credits: number; balance: number }>(server, 'POST', '/api/v1/quote', {
      token: team.key,
      body: {
        endpoint: '/api/v1/images/generate',
        body: { prompt: 'a quoted lighthouse', batch: 3, model: 'flux-1-dev', settings: { aspect_ratio: '16:9' } },
      },
    });
    assert.equal(api.status, 200, api.text);
    assert.match(quoted.text, new RegExp(`${api.body.credits} credits \\(balance 1000\\)`));
    assert.equal(await balanceOf(server, team.key), 1000);

    const invalid = await browser.request(
      'POST',
      '/console/playground/images-generate/quote',
      { ...fields, prompt: '', batch: '99' },
      HTMX,
    );
    assert.match(invalid.text, /role="alert"/);
    assert.match(invalid.text, /<a href="#f-batch"><code>batch<\/code><\/a>: [^<]*10/);
    const unreadable = await browser.request(
      'POST',
      '/console/playground/images-generate/quote',
      { ...fields, batch: 'three' },
      HTMX,
    );
    assert.match(unreadable.text, /<code>batch<\/code><\/a>: must be a number/);
    assert.equal(await balanceOf(server, team.key), 1000);
  });

  test('submitting an image form charges the quote once and shows the live result in place', async () => {
    const page = await browser.request('GET', '/console/playground/images-generate');
    const fields: Record<string, string> = { ...formOf(page.text), prompt: 'a playground lighthouse', batch: '2' };
    assert.ok((fields._idempotency ?? '').length > 10, 'the form carries an Idempotency-Key');
    const before = await balanceOf(server, team.key);
    const quote = await browser.request('POST', '/console/playground/images-generate/quote', fields, HTMX);
    const credits = Number(/(\d+) credits \(balance/.exec(quote.text)?.[1]);
    assert.ok(credits > 0);

    const first = await browser.request('POST', '/console/playground/images-generate/submit', fields, HTMX);
    assert.equal(first.status, 200);
    const id = /\/console\/generations\/(gen_[^/"]+)\/fragment/.exec(first.text)?.[1];
    assert.ok(id, first.text);
    assert.match(first.text, /id="generation-status"/);
    assert.match(first.text, /data-live="\/console\/generations\/[^"]+\/events"/, 'it follows the status stream');
    assert.match(
      first.text,
      /<input [^>]*name="_idempotency"[^>]*hx-swap-oob="true"/,
      'the next submit gets a new key',
    );
    // The same form sent again (a double click): the same generation, one charge.
    const again = await browser.request('POST', '/console/playground/images-generate/submit', fields, HTMX);
    assert.equal(again.status, 200);
    assert.ok(again.text.includes(`/console/generations/${id}/fragment`), 'the same generation');
    assert.equal(await balanceOf(server, team.key), before - credits);

    // A form rendered again has a key of its own; its two submits at once are still one generation.
    const next = formOf((await browser.request('GET', '/console/playground/images-generate')).text);
    assert.notEqual(next._idempotency, fields._idempotency);
    const twice = await Promise.all(
      [1, 2].map(() =>
        browser.request(
          'POST',
          '/console/playground/images-generate/submit',
          { ...next, prompt: 'a double-clicked lighthouse', batch: '2' },
          HTMX,
        ),
      ),
    );
    const ids = twice.map((r) => /\/console\/generations\/(gen_[^/"]+)\/fragment/.exec(r.text)?.[1]);
    assert.ok(ids[0], twice[0]?.text);
    assert.equal(ids[0], ids[1]);
    assert.equal(await balanceOf(server, team.key), before - 2 * credits);

    const done = await waitForGeneration(server, team.key, id);
    assert.equal(done.status, 'completed');
    const fragment = await browser.request('GET', `/console/generations/${id}/fragment`, undefined, HTMX);
    assert.match(fragment.text, /<img src="[^"]+\.png"/);
    assert.doesNotMatch(fragment.text, /data-live=/, 'a finished generation is no longer followed');
  });

  test('a text request answers its text in place; a speech request an audio player', async () => {
    const page = await browser.request('GET', '/console/playground/text-generate');
    assert.match(page.text, /<select [^>]*name="model"/);
    assert.match(page.text, /name="settings\.temperature"[^>]*step="any"/);
    const text = await browser.request(
      'POST',
      '/console/playground/text-generate/submit',
      { ...formOf(page.text), prompt: 'Explain how a lighthouse works.', 'settings.max_tokens': '200' },
      HTMX,
    );
    assert.equal(text.status, 200);
    assert.match(text.text, /<pre class="text-result">[^<]*lighthouse/i);
    assert.match(text.text, /Generation <a href="\/console\/generations\/gen_/);

    const speechPage = await browser.request('GET', '/console/playground/text-to-speech');
    const voices = /<select [^>]*name="voice_id"[^>]*>([\s\S]*?)<\/select>/.exec(speechPage.text)?.[1] ?? '';
    const voice = /<option value="([^"]+)">[^<]*credits? per generation/.exec(voices)?.[1];
    assert.ok(voice, 'the voices with their price');
    const speech = await browser.request(
      'POST',
      '/console/playground/text-to-speech/submit',
      { ...formOf(speechPage.text), voice_id: voice, text: 'Hello from the playground.' },
      HTMX,
    );
    assert.equal(speech.status, 200);
    assert.match(speech.text, /<audio src="[^"]+" controls/);
  });

  test('an API refusal shows in place; a form without the CSRF token is refused and charges nothing', async () => {
    const page = await browser.request('GET', '/console/playground/videos-wan-2.2-lora');
    const fields = formOf(page.text);
    const refused = await browser.request(
      'POST',
      '/console/playground/videos-wan-2.2-lora/quote',
      { ...fields, mode: 't2v', prompt: 'a lighthouse', loras: '[{"path": "not json"' },
      HTMX,
    );
    assert.match(refused.text, /<code>loras<\/code><\/a>: must be JSON/);
    const priced = await browser.request(
      'POST',
      '/console/playground/videos-wan-2.2-lora/quote',
      {
        ...fields,
        mode: 't2v',
        prompt: 'a lighthouse',
        loras: '[{"path": "https://example.com/a.safetensors", "scale": 1, "transformer": "high"}]',
        'settings.resolution': '480p',
      },
      HTMX,
    );
    assert.match(priced.text, /\d+ credits \(balance \d+\)/);

    const before = await balanceOf(server, team.key);
    const imagePage = await browser.request('GET', '/console/playground/images-generate');
    const forgedForm: Record<string, string> = { ...formOf(imagePage.text), prompt: 'forged' };
    const { _csrf, ...withoutToken } = forgedForm;
    assert.ok(_csrf);
    const forged = await browser.request('POST', '/console/playground/images-generate/submit', withoutToken, HTMX);
    assert.equal(forged.status, 403);
    const foreign = await browser.request(
      'POST',
      '/console/playground/images-generate/submit',
      { ...withoutToken, _csrf },
      { ...HTMX, origin: 'https://evil.example' },
    );
    assert.equal(foreign.status, 403);
    assert.equal(await balanceOf(server, team.key), before);
  });
});

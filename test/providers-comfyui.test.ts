// The ComfyUI adapter against a fake ComfyUI server (test/fakes/comfyui.ts) built from ComfyUI's
// public API shapes: what it queues (the templates filled by title), how it keeps a prompt from
// running twice, how it reads the queue and the history, how it stops a prompt, and the
// templates themselves, checked against the core nodes as ComfyUI declares them.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { WorkError } from '../src/lib/errors.ts';
import { createComfyProvider } from '../src/providers/comfyui/client.ts';
import {
  COMFYUI_MAPPINGS,
  framesFor,
  isLink,
  loadWorkflows,
  namedNodes,
  parseWorkflow,
  sizeForRatio,
  videoSize,
  type Workflow,
} from '../src/providers/comfyui/workflows.ts';
import type {
  ImageRequest,
  PollResult,
  Provider,
  ProviderError,
  VendorHandle,
  VideoRequest,
} from '../src/providers/types.ts';
import { CORE_NODES, type FakeComfy, type FakeNode, startFakeComfy } from './fakes/comfyui.ts';
import { failure } from './provider-helpers.ts';

const PROXY = { name: 'x-proxy-key', value: 'proxy-secret' };

const imageRequest = (over: Partial<ImageRequest> = {}): ImageRequest => ({
  kind: 'image',
  prompt: 'a lighthouse at dusk',
  negativePrompt: 'blurry',
  size: { width: 832, height: 1216 },
  aspectRatio: '2:3',
  steps: 28,
  seed: 1234,
  references: [],
  lora: null,
  ...over,
});

const videoRequest = (over: Partial<VideoRequest> = {}): VideoRequest => ({
  kind: 'video',
  prompt: 'waves rolling onto the shore',
  negativePrompt: null,
  aspectRatio: '16:9',
  durationSeconds: 5,
  resolution: '720p',
  fps: 24,
  seed: 77,
  firstFrame: 'https://media.example.com/frame.png',
  lastFrame: null,
  audio: false,
  loras: [],
  ...over,
});

/** The nodes of a submitted prompt that carry a title. */
function titled(prompt: Record<string, FakeNode>, title: string): FakeNode {
  const nodes = Object.values(prompt).filter((node) => node._meta?.title === title);
  assert.equal(nodes.length, 1, `one node titled ${title}`);
  return nodes[0] as FakeNode;
}

function ofClass(prompt: Record<string, FakeNode>, classType: string): FakeNode {
  const node = Object.values(prompt).find((n) => n.class_type === classType);
  assert.ok(node, `a ${classType} node`);
  return node;
}

function failed(result: PollResult): ProviderError {
  assert.equal(result.kind, 'failed', JSON.stringify(result));
  return (result as Extract<PollResult, { kind: 'failed' }>).error;
}

describe('the ComfyUI adapter', () => {
  let comfy: FakeComfy;
  let provider: Provider;
  let png: Buffer;
  const workflows = loadWorkflows();
  const fetched: string[] = [];

  before(async () => {
    png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#00aa88' } })
      .png()
      .toBuffer();
    comfy = await startFakeComfy({ requireHeader: PROXY, loras: ['detail-tweaker.safetensors'] });
    provider = createComfyProvider({
      baseUrl: `${comfy.url}/`,
      headers: { [PROXY.name]: PROXY.value },
      fetch,
      workflows,
      fetchInput: async (url) => {
        fetched.push(url);
        if (url.endsWith('/missing.png')) throw Object.assign(new Error('HTTP 404'), { retryable: false });
        return { data: png, contentType: 'image/png' };
      },
    });
  });
  after(() => comfy.close());

  const submit = async (endpoint: string, input: Record<string, unknown>, key: string = randomUUID()) => {
    const result = await provider.submit({ endpoint, input, idempotencyKey: key });
    assert.equal(result.kind, 'accepted');
    return result as Extract<typeof result, { kind: 'accepted' }>;
  };
  const imageInput = (over: Partial<ImageRequest> = {}) => COMFYUI_MAPPINGS.image(imageRequest(over));
  const lastPrompt = () => {
    const sent = comfy.submissions.at(-1);
    assert.ok(sent, 'a prompt was sent');
    return sent;
  };

  test('text-to-image fills prompt, negative prompt, seed, size and steps into the titled nodes, with our id as prompt_id', async () => {
    const key = `itm_${randomUUID()}`;
    const accepted = await submit('text-to-image', imageInput(), key);
    assert.deepEqual(accepted, { kind: 'accepted', vendorRequestId: key, handle: { prompt_id: key } });
    const sent = lastPrompt();
    assert.equal(sent.promptId, key);
    assert.match(String(sent.clientId), /^genmedia-/);
    assert.equal(sent.headers[PROXY.name], PROXY.value);
    assert.equal(titled(sent.prompt, 'prompt').inputs.text, 'a lighthouse at dusk');
    assert.equal(titled(sent.prompt, 'negative_prompt').inputs.text, 'blurry');
    assert.equal(titled(sent.prompt, 'seed').inputs.value, 1234);
    assert.equal(titled(sent.prompt, 'steps').inputs.value, 28);
    assert.deepEqual(
      [titled(sent.prompt, 'size').inputs.width, titled(sent.prompt, 'size').inputs.height],
      [832, 1216],
    );
    // No LoRA asked for: the loader is cut out, the sampler and the text encoders read the checkpoint.
    assert.ok(!Object.values(sent.prompt).some((n) => n.class_type === 'LoraLoader'));
    const checkpoint = Object.entries(sent.prompt).find(([, n]) => n._meta?.title === 'checkpoint')?.[0];
    assert.deepEqual(ofClass(sent.prompt, 'KSampler').inputs.model, [checkpoint, 0]);
    assert.deepEqual(titled(sent.prompt, 'prompt').inputs.clip, [checkpoint, 1]);
    assert.equal(comfy.state(key), 'pending');
  });

  test('without a size, a text-to-image is about a megapixel in its aspect ratio', async () => {
    await submit('text-to-image', imageInput({ size: null, aspectRatio: '16:9', negativePrompt: null }));
    const sent = lastPrompt();
    const size = titled(sent.prompt, 'size').inputs;
    assert.deepEqual([size.width, size.height], [1344, 768]);
    // No negative prompt: the template's own stays.
    assert.equal(titled(sent.prompt, 'negative_prompt').inputs.text, '');
  });

  test('a LoRA URL names its file in the lora node; a URL without a file name is refused', async () => {
    await submit(
      'text-to-image',
      imageInput({
        lora: { url: 'https://huggingface.co/acme/loras/resolve/main/detail-tweaker.safetensors', type: 'sdxl' },
      }),
    );
    const lora = titled(lastPrompt().prompt, 'lora');
    assert.equal(lora.class_type, 'LoraLoader');
    assert.equal(lora.inputs.lora_name, 'detail-tweaker.safetensors');
    assert.equal(lora.inputs.strength_model, 1);
    assert.equal(lora.inputs.strength_clip, 1);
    const err = await failure(async () =>
      imageInput({ lora: { url: 'https://civitai.com/api/download/models/12345', type: 'sdxl' } }),
    );
    assert.equal(err.kind, 'invalid_input');
    assert.match(err.message, /models\/loras/);
  });

  test('a submit repeated with the same id does not queue it again: found in the queue, then in the history', async () => {
    const key = `itm_${randomUUID()}`;
    await submit('text-to-image', imageInput(), key);
    const sent = comfy.submissions.length;
    assert.deepEqual(await submit('text-to-image', imageInput(), key), {
      kind: 'accepted',
      vendorRequestId: key,
      handle: { prompt_id: key },
    });
    comfy.run(key);
    assert.equal((await submit('text-to-image', imageInput(), key)).vendorRequestId, key, 'running');
    comfy.finish(key);
    assert.equal(comfy.state(key), 'history');
    assert.equal((await submit('text-to-image', imageInput(), key)).vendorRequestId, key, 'finished');
    assert.equal(comfy.submissions.length, sent, 'POST /prompt was not sent again');
  });

  test('a submit whose answer was lost may have been queued; sent again, it finds its prompt', async () => {
    const key = `itm_${randomUUID()}`;
    const input = imageInput({ prompt: 'a cut answer [comfy:cut]' });
    const cut = await failure(() => provider.submit({ endpoint: 'text-to-image', input, idempotencyKey: key }));
    assert.equal(cut.retryable, true);
    assert.equal(cut.maybeAccepted, true);
    assert.equal(provider.idempotentSubmit, true);
    const sent = comfy.submissions.length;
    assert.equal((await submit('text-to-image', input, key)).vendorRequestId, key);
    assert.equal(comfy.submissions.length, sent);
  });

  test('image-to-image uploads the input image and names it in LoadImage', async () => {
    await submit('image-to-image', imageInput({ size: null, references: ['https://media.example.com/cat.png'] }));
    assert.equal(fetched.at(-1), 'https://media.example.com/cat.png');
    const upload = comfy.uploads.at(-1);
    assert.ok(upload);
    assert.deepEqual(upload.data, png);
    assert.equal(upload.contentType, 'image/png');
    assert.equal(upload.overwrite, 'true');
    assert.equal(upload.type, 'input');
    assert.equal(upload.headers[PROXY.name], PROXY.value);
    assert.match(upload.filename, /^genmedia-[0-9a-f]{32}\.png$/);
    const sent = lastPrompt();
    assert.equal(titled(sent.prompt, 'image').class_type, 'LoadImage');
    assert.equal(titled(sent.prompt, 'image').inputs.image, upload.filename);
    // No size asked for: the scale node is left at 0x0, which keeps the image's own.
    assert.deepEqual([titled(sent.prompt, 'size').inputs.width, titled(sent.prompt, 'size').inputs.height], [0, 0]);
  });

  test('an image for a workflow that takes none, or none for one that needs it, is the input’s fault', async () => {
    const extra = await failure(() =>
      provider.submit({
        endpoint: 'text-to-image',
        input: imageInput({ references: ['https://media.example.com/cat.png'] }),
        idempotencyKey: randomUUID(),
      }),
    );
    assert.equal(extra.kind, 'invalid_input');
    assert.match(extra.message, /takes no input image/);
    const missing = await failure(() =>
      provider.submit({ endpoint: 'image-to-image', input: imageInput(), idempotencyKey: randomUUID() }),
    );
    assert.equal(missing.kind, 'invalid_input');
    const unfetchable = await failure(() =>
      provider.submit({
        endpoint: 'image-to-image',
        input: imageInput({ references: ['https://media.example.com/missing.png'] }),
        idempotencyKey: randomUUID(),
      }),
    );
    assert.equal(unfetchable.kind, 'invalid_input');
    assert.equal(unfetchable.retryable, false);
  });

  test('the video workflow fills frames, fps, size, the first frame and a LoRA; its result is one mp4', async () => {
    const input = COMFYUI_MAPPINGS.video(
      videoRequest({
        loras: [{ url: 'https://example.com/l/detail-tweaker.safetensors', scale: 0.8, transformer: 'both' }],
      }),
    );
    const { handle } = await submit('image-to-video', input);
    const sent = lastPrompt();
    assert.equal(titled(sent.prompt, 'frames').inputs.value, 121);
    assert.equal(titled(sent.prompt, 'fps').class_type, 'CreateVideo');
    assert.equal(titled(sent.prompt, 'fps').inputs.fps, 24);
    const size = titled(sent.prompt, 'size');
    assert.equal(size.class_type, 'Wan22ImageToVideoLatent');
    assert.deepEqual([size.inputs.width, size.inputs.height], [1280, 704]);
    assert.equal(titled(sent.prompt, 'image').inputs.image, comfy.uploads.at(-1)?.filename);
    assert.equal(titled(sent.prompt, 'lora').inputs.lora_name, 'detail-tweaker.safetensors');
    assert.equal(titled(sent.prompt, 'lora').inputs.strength_model, 0.8);
    assert.equal(titled(sent.prompt, 'prompt').inputs.text, 'waves rolling onto the shore');

    comfy.run(String(handle.prompt_id));
    comfy.finish(String(handle.prompt_id));
    const done = await provider.poll(handle);
    assert.equal(done.kind, 'done');
    const files = done.kind === 'done' ? done.output.files : [];
    assert.equal(files.length, 1);
    const file = files[0];
    assert.ok(file && 'url' in file);
    assert.equal(file.contentType, 'video/mp4');
    assert.match(file.url, /\/view\?filename=video_\d{5}_\.mp4&subfolder=genmedia&type=output$/);
  });

  test('polls a queued prompt with its place in the queue, then running, then its files as /view URLs with the proxy headers', async () => {
    comfy.restart();
    const keys = [0, 1, 2, 3].map(() => `itm_${randomUUID()}`);
    for (const key of keys) await submit('text-to-image', imageInput(), key);
    const [first, second, third, fourth] = keys as [string, string, string, string];
    assert.equal(comfy.run(), first);
    // ComfyUI lists its pending prompts as its heap keeps them, not in the order they will run.
    const queue = (await (await fetch(`${comfy.url}/queue`, { headers: { [PROXY.name]: PROXY.value } })).json()) as {
      queue_pending: unknown[][];
    };
    assert.deepEqual(
      queue.queue_pending.map((entry) => entry[1]),
      [second, fourth, third],
    );
    const handle = (id: string): VendorHandle => ({ prompt_id: id });
    assert.deepEqual(await provider.poll(handle(third)), {
      kind: 'pending',
      progress: 0,
      queuePosition: 1,
      pollAfterMs: 2000,
    });
    const last = await provider.poll(handle(fourth));
    assert.equal(last.kind === 'pending' ? last.queuePosition : undefined, 2);
    assert.deepEqual(await provider.poll(handle(first)), { kind: 'pending', pollAfterMs: 1000 });
    comfy.finish(first);
    const done = await provider.poll(handle(first));
    assert.equal(done.kind, 'done');
    const output = (done as Extract<PollResult, { kind: 'done' }>).output;
    assert.equal(output.metadata.prompt_id, first);
    assert.equal(typeof output.metadata.duration_ms, 'number');
    assert.equal(output.files.length, 1);
    const file = output.files[0];
    assert.ok(file && 'url' in file);
    assert.equal(file.contentType, 'image/png');
    assert.deepEqual(file.headers, { [PROXY.name]: PROXY.value });
    assert.match(file.fileName ?? '', /^image_\d{5}_\.png$/);
    assert.equal(file.url, `${comfy.url}/view?filename=${file.fileName}&subfolder=genmedia&type=output`);
    const served = await fetch(file.url, { headers: file.headers });
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.deepEqual((await sharp(Buffer.from(await served.arrayBuffer())).metadata()).format, 'png');
    assert.equal((await fetch(file.url)).status, 401, 'the file needs the proxy header too');
    for (const key of [second, third, fourth]) comfy.finish(key);
  });

  test('a node error is invalid_input naming the node and its message, without the server’s file list', async () => {
    const input = imageInput({ lora: { url: 'https://example.com/not-here.safetensors', type: 'sdxl' } });
    const err = await failure(() =>
      provider.submit({ endpoint: 'text-to-image', input, idempotencyKey: randomUUID() }),
    );
    assert.equal(err.kind, 'invalid_input');
    assert.equal(err.retryable, false);
    assert.equal(err.failover, false);
    assert.match(err.message, /Prompt outputs failed validation/);
    assert.match(err.message, /node \d+ "lora" \(LoraLoader\): Value not in list: lora_name 'not-here.safetensors'/);
    assert.ok(!err.message.includes('detail-tweaker'), 'the LoRAs the server has are not shown');
  });

  test('a node class the server lacks, or a workflow it does not have, is the setup’s fault: another route may serve', async () => {
    const custom: Workflow = {
      '1': { class_type: 'NotACoreNode', inputs: {}, _meta: { title: 'prompt' } },
      '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } },
    };
    const odd = createComfyProvider({
      baseUrl: comfy.url,
      headers: { [PROXY.name]: PROXY.value },
      fetch,
      workflows: { custom },
      fetchInput: async () => ({ data: png, contentType: 'image/png' }),
    });
    const missingNode = await failure(() =>
      odd.submit({ endpoint: 'custom', input: {}, idempotencyKey: randomUUID() }),
    );
    assert.equal(missingNode.kind, 'internal');
    assert.equal(missingNode.failover, true);
    assert.match(missingNode.message, /NotACoreNode does not exist/);
    const unknown = await failure(() => odd.submit({ endpoint: 'upscale', input: {}, idempotencyKey: randomUUID() }));
    assert.equal(unknown.kind, 'internal');
    assert.match(unknown.message, /no workflow named upscale \(known: custom\)/);
  });

  test('an execution error fails the prompt with its message; out of memory is retryable', async () => {
    const broken = await submit('text-to-image', imageInput({ prompt: 'a shape mismatch [comfy:error]' }));
    comfy.run(broken.vendorRequestId);
    comfy.finish(broken.vendorRequestId);
    const error = failed(await provider.poll(broken.handle));
    assert.equal(error.kind, 'internal');
    assert.equal(error.retryable, false);
    assert.equal(error.vendorCode, 'RuntimeError');
    assert.match(error.message, /mat1 and mat2 shapes cannot be multiplied .* in node \d+ \(KSampler\)/);

    const oom = await submit('text-to-image', imageInput({ prompt: 'too large [comfy:oom]' }));
    comfy.finish(oom.vendorRequestId);
    const memory = failed(await provider.poll(oom.handle));
    assert.equal(memory.kind, 'unavailable');
    assert.equal(memory.retryable, true);
    assert.equal(memory.vendorCode, 'torch.OutOfMemoryError');
  });

  test('cancel deletes a pending prompt from the queue (not started) and interrupts a running one, which then polls canceled', async () => {
    const waiting = await submit('text-to-image', imageInput());
    const interruptsBefore = comfy.interrupts.length;
    assert.equal(await provider.cancel?.(waiting.handle), 'not_started');
    assert.deepEqual(comfy.deletes.at(-1), waiting.vendorRequestId);
    assert.equal(comfy.interrupts.length, interruptsBefore, 'nothing running was interrupted');
    assert.equal(comfy.state(waiting.vendorRequestId), undefined);

    const busy = await submit('text-to-image', imageInput());
    comfy.run(busy.vendorRequestId);
    assert.equal(await provider.cancel?.(busy.handle), 'running');
    assert.deepEqual(comfy.interrupts.at(-1), { prompt_id: busy.vendorRequestId });
    const canceled = failed(await provider.poll(busy.handle));
    assert.equal(canceled.kind, 'canceled');
    assert.equal(canceled.retryable, false);
  });

  test('a prompt the server lost (it restarted) fails retryably', async () => {
    const lost = await submit('text-to-image', imageInput());
    comfy.restart();
    const error = failed(await provider.poll(lost.handle));
    assert.equal(error.kind, 'unavailable');
    assert.equal(error.retryable, true);
    assert.match(error.message, /no longer knows the prompt/);
  });

  test('the proxy header goes on every call; without it the refusal is auth', async () => {
    // The adapter reads no file itself (the service downloads them with the headers the files carry).
    const calls = comfy.requests.filter((request) => !request.path.startsWith('/view'));
    assert.ok(calls.length > 20);
    for (const request of calls) assert.equal(request.headers[PROXY.name], PROXY.value, request.path);
    const bare = createComfyProvider({
      baseUrl: comfy.url,
      headers: {},
      fetch,
      workflows,
      fetchInput: async () => ({ data: png, contentType: 'image/png' }),
    });
    const err = await failure(() =>
      bare.submit({ endpoint: 'text-to-image', input: imageInput(), idempotencyKey: randomUUID() }),
    );
    assert.equal(err.kind, 'auth');
    assert.equal(err.retryable, false);
    assert.equal(err.failover, true);
    assert.ok(!err.message.includes(PROXY.value));
    assert.equal((await provider.check?.())?.reachable, true, 'the check reads the queue through the proxy');
    const refused = await bare.check?.();
    assert.equal(refused?.reachable, false);
    assert.match(refused?.detail ?? '', /refused our credentials \(HTTP 401\)/);
  });

  test('a 5xx is retryable and unavailable; so is a server that cannot be reached', async () => {
    const down = await failure(() =>
      provider.submit({
        endpoint: 'text-to-image',
        input: imageInput({ prompt: 'x [comfy:500]' }),
        idempotencyKey: randomUUID(),
      }),
    );
    assert.equal(down.kind, 'unavailable');
    assert.equal(down.retryable, true);
    assert.equal(down.vendorCode, '500');

    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const { port } = probe.address() as AddressInfo;
    await new Promise((r) => probe.close(r));
    const gone = createComfyProvider({
      baseUrl: `http://127.0.0.1:${port}`,
      headers: {},
      fetch,
      workflows,
      fetchInput: async () => ({ data: png, contentType: 'image/png' }),
    });
    const err = await failure(() =>
      gone.submit({ endpoint: 'text-to-image', input: imageInput(), idempotencyKey: randomUUID() }),
    );
    assert.equal(err.kind, 'unavailable');
    assert.equal(err.retryable, true);
    assert.equal(err.maybeAccepted, false, 'a refused connection never reached ComfyUI');
    assert.equal((await gone.check?.())?.reachable, false, 'nobody answers the check');
  });
});

describe('the ComfyUI workflow templates', () => {
  const EXPECTED: Record<string, string[]> = {
    'text-to-image': ['checkpoint', 'lora', 'negative_prompt', 'prompt', 'seed', 'size', 'steps'],
    'image-to-image': ['checkpoint', 'image', 'lora', 'negative_prompt', 'prompt', 'seed', 'size', 'steps'],
    'image-to-video': [
      'checkpoint',
      'fps',
      'frames',
      'image',
      'lora',
      'negative_prompt',
      'prompt',
      'seed',
      'size',
      'steps',
    ],
  };

  test('every template loads, and every titled node it declares exists with the inputs its value goes in', () => {
    const workflows = loadWorkflows();
    assert.deepEqual(Object.keys(workflows).sort(), Object.keys(EXPECTED).sort());
    for (const [name, workflow] of Object.entries(workflows)) {
      assert.deepEqual(namedNodes(workflow), EXPECTED[name], name);
      const inputOf = (title: string, input: string) =>
        Object.values(workflow).some((node) => node._meta?.title === title && input in node.inputs);
      assert.ok(inputOf('prompt', 'text') && inputOf('negative_prompt', 'text'), name);
      assert.ok(inputOf('seed', 'value') && inputOf('steps', 'value'), name);
      assert.ok(inputOf('size', 'width') && inputOf('size', 'height'), name);
      assert.ok(inputOf('lora', 'lora_name') && inputOf('lora', 'strength_model'), name);
      if (name !== 'text-to-image') assert.ok(inputOf('image', 'image'), name);
      if (name === 'image-to-video') assert.ok(inputOf('frames', 'value') && inputOf('fps', 'fps'), name);
    }
  });

  test('every node of every template is a core ComfyUI node with its inputs, wired by type', () => {
    for (const [name, workflow] of Object.entries(loadWorkflows())) {
      let outputs = 0;
      for (const [id, node] of Object.entries(workflow)) {
        const where = `${name} node ${id} (${node.class_type})`;
        const core = CORE_NODES[node.class_type];
        assert.ok(core, `${where} is not a core node`);
        if (core.output) outputs += 1;
        const declared = { ...core.required, ...core.optional };
        for (const input of Object.keys(core.required)) assert.ok(input in node.inputs, `${where} lacks ${input}`);
        for (const [input, value] of Object.entries(node.inputs)) {
          const type = declared[input];
          assert.ok(type !== undefined, `${where} has no input ${input}`);
          if (isLink(value)) {
            const source = workflow[value[0]];
            assert.ok(source, `${where} ${input} links to a missing node`);
            const given = CORE_NODES[source.class_type]?.outputs[value[1]];
            assert.equal(given, type, `${where} ${input} is wired to a ${given}`);
          } else if (Array.isArray(type)) {
            assert.ok(type.includes(value as string), `${where} ${input}: ${String(value)} is not an option`);
          } else if (type === 'INT') {
            assert.ok(Number.isInteger(value), `${where} ${input} is not an integer`);
          } else if (type === 'FLOAT') {
            assert.equal(typeof value, 'number', `${where} ${input}`);
          } else {
            assert.equal(typeof value, 'string', `${where} ${input}`);
          }
        }
      }
      assert.equal(outputs, 1, `${name} saves one result`);
    }
  });

  test('a template that cannot be filled is refused when it loads, saying what to fix', () => {
    assert.throws(
      () => parseWorkflow('bad', { '1': { class_type: 'KSampler', inputs: { model: ['9', 0] } } }),
      /bad: node 1 input model links to node 9, which is missing/,
    );
    assert.throws(
      () =>
        parseWorkflow('bad', {
          '1': {
            class_type: 'CheckpointLoaderSimple',
            inputs: { ckpt_name: 'x', lora_name: 'y', strength_model: 1 },
            _meta: { title: 'lora' },
          },
        }),
      /titled "lora" is a CheckpointLoaderSimple, not a LoRA loader/,
    );
    assert.throws(
      () => parseWorkflow('bad', { '1': { class_type: 'EmptyLatentImage', inputs: {}, _meta: { title: 'size' } } }),
      /has none of width for width/,
    );
  });

  test('the mappings size pictures by ratio and videos by resolution, and refuse what the workflows cannot take', () => {
    assert.deepEqual(sizeForRatio('1:1'), { width: 1024, height: 1024 });
    assert.deepEqual(sizeForRatio('9:16'), { width: 768, height: 1344 });
    assert.deepEqual(videoSize('480p', '16:9'), { width: 832, height: 480 });
    assert.deepEqual(videoSize('720p', '9:16'), { width: 704, height: 1280 });
    assert.equal(framesFor(5, 24), 121);
    assert.equal(framesFor(2, 16), 33);
    assert.equal(COMFYUI_MAPPINGS.video(videoRequest({ frames: 49 })).frames, 49);
    const refused = (call: () => unknown) => {
      try {
        call();
      } catch (err) {
        assert.ok(err instanceof WorkError);
        assert.equal(err.kind, 'invalid_input');
        return;
      }
      assert.fail('expected a refusal');
    };
    refused(() => COMFYUI_MAPPINGS.video(videoRequest({ lastFrame: 'https://media.example.com/end.png' })));
    refused(() =>
      COMFYUI_MAPPINGS.video(
        videoRequest({
          loras: [
            { url: 'https://e.com/a.safetensors', scale: 1, transformer: 'high' },
            { url: 'https://e.com/b.safetensors', scale: 1, transformer: 'low' },
          ],
        }),
      ),
    );
    refused(() => COMFYUI_MAPPINGS.image(imageRequest({ references: ['https://e.com/a.png', 'https://e.com/b.png'] })));
    assert.throws(() => COMFYUI_MAPPINGS.image(videoRequest()), /A image mapping was given a video request/);
  });
});

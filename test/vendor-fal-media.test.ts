// Every media operation fal serves, through the whole service and a fake fal queue (test/fakes/fal.ts)
// on 127.0.0.1 that answers video endpoints with an MP4 and 3D ones with a GLB: what is sent to which
// endpoint, and that the files copied into our storage decode.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NodeIO } from '@gltf-transform/core';
import { probeMedia } from '../src/lib/ffmpeg.ts';
import { type FakeFal, startFakeFal } from './fakes/fal.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import {
  balanceOf,
  type StatusRecord,
  startWeightsServer,
  waitForGeneration,
  waitForInfluencer,
} from './media-helpers.ts';

describe('media operations through fal.ai', () => {
  let fal: FakeFal;
  let server: TestServer;
  let team: TeamFixture;
  /** A clip fal's fake serves (1 s, 64x48), an image the simulator made, speech the simulator spoke. */
  let clipUrl: string;
  let imageUrl: string;
  let speechUrl: string;
  let weights: Awaited<ReturnType<typeof startWeightsServer>>;

  before(async () => {
    weights = await startWeightsServer();
    fal = await startFakeFal();
    server = await startTestServer({
      env: { ...fal.env, WORKER_CONCURRENCY: '2' },
    });
    team = await createTeam(server, 1_000_000);
    clipUrl = `${fal.url}/files/clip.mp4`;
    // flux-1-pro has no fal mapping: the simulator makes it.
    const image = await post<{ generation_id: string }>('/api/v1/images/generate', {
      prompt: 'a portrait of a smiling robot',
      model: 'flux-1-pro',
    });
    imageUrl = (await waitForGeneration(server, team.key, image.generation_id)).items[0]?.url ?? '';
    const tts = await post<{ audio_url: string }>('/api/v2/text-to-speech', {
      voice_id: 'Wise_Woman',
      text: 'Hello there, this is a short test of the voice.',
    });
    speechUrl = tts.audio_url;
  });
  after(async () => {
    await server.close();
    await fal.close();
    weights.close();
  });

  async function post<T>(path: string, body: Record<string, unknown>): Promise<T> {
    const r = await call<T>(server, 'POST', path, { token: team.key, body });
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    return r.body;
  }

  /** The one submission to fal whose input holds `marker`. */
  function sentWith(marker: string) {
    const sent = fal.submissions.filter((s) => JSON.stringify(s.input).includes(marker));
    assert.equal(sent.length, 1, `one fal job for ${marker}`);
    return sent[0] as (typeof sent)[number];
  }

  async function videoOf(done: StatusRecord) {
    assert.equal(done.status, 'completed', JSON.stringify(done.items));
    const url = done.items[0]?.url ?? '';
    assert.ok(url.startsWith(`${server.url}/media/`) && url.endsWith('.mp4'), url);
    const probe = await probeMedia(Buffer.from(await (await fetch(url)).arrayBuffer()));
    assert.ok(probe.hasVideo, 'an MP4 with a video stream');
    return probe;
  }

  test('videos/generate: text to the text-to-video endpoint, a first frame to the image-to-video one', async () => {
    const t2v = await post<{ generation_id: string }>('/api/v1/videos/generate', {
      prompt: 'a fox runs through snow',
      model: 'kling-2.1-master',
      settings: { duration: 5, aspect_ratio: '9:16' },
    });
    const probe = await videoOf(await waitForGeneration(server, team.key, t2v.generation_id, 30_000));
    assert.equal(probe.width, 64, 'the bytes fal made');
    const sent = sentWith('a fox runs through snow');
    assert.equal(sent.endpoint, 'fal-ai/kling-video/v2.1/master/text-to-video');
    assert.equal(sent.input.duration, '5');
    assert.equal(sent.input.aspect_ratio, '9:16');

    const i2v = await post<{ generation_id: string }>('/api/v1/videos/generate', {
      prompt: 'the robot waves',
      model: 'kling-2.1-master',
      first_frame_image: imageUrl,
    });
    await videoOf(await waitForGeneration(server, team.key, i2v.generation_id, 30_000));
    const first = sentWith('the robot waves');
    assert.equal(first.endpoint, 'fal-ai/kling-video/v2.1/master/image-to-video');
    assert.equal(first.input.image_url, imageUrl, 'our own image, by its URL');
  });

  test('lip sync, motion control and upscale send the clip and their settings', async () => {
    const before = await balanceOf(server, team.key);
    const lipsync = await post<{ generation_id: string }>('/api/v1/videos/lipsync', {
      video_url: clipUrl,
      audio_url: speechUrl,
    });
    const lipDone = await waitForGeneration(server, team.key, lipsync.generation_id, 30_000);
    await videoOf(lipDone);
    const lip = fal.submissions.find((s) => s.input.audio_url === speechUrl);
    assert.ok(lip?.endpoint.includes('lipsync'), lip?.endpoint);
    // Not the clip's own URL: our copy of it, at a signed URL of ours.
    assert.match(
      String(lip?.input.video_url),
      new RegExp(`^${server.url}/media/gen_[^?]+/input-[^?]+\\.mp4\\?expires=`),
    );

    const motion = await post<{ generation_id: string }>('/api/v1/videos/motion-control', {
      image_url: imageUrl,
      video_url: clipUrl,
      character_orientation: 'image',
      prompt: 'dance like the clip',
    });
    await videoOf(await waitForGeneration(server, team.key, motion.generation_id, 30_000));
    const moved = sentWith('dance like the clip');
    assert.equal(moved.endpoint, 'fal-ai/kling-video/v2.6/pro/motion-control');
    assert.equal(moved.input.image_url, imageUrl);
    assert.equal(moved.input.character_orientation, 'image');

    const upscale = await post<{ generation_id: string }>('/api/v1/videos/upscale', {
      video_url: clipUrl,
      model: 'topaz',
      upscale_factor: 2,
      target_fps: 30,
      h264_output: true,
    });
    const upDone = await waitForGeneration(server, team.key, upscale.generation_id, 30_000);
    await videoOf(upDone);
    const up = fal.submissions.filter((s) => s.endpoint === 'fal-ai/topaz/upscale/video').at(-1);
    assert.equal(up?.input.upscale_factor, 2);
    assert.equal(up?.input.target_fps, 30);
    assert.equal(up?.input.H264_output, true, 'Topaz spells it with a capital H');
    const spent = lipDone.credits_used + upDone.credits_used;
    assert.ok((await balanceOf(server, team.key)) <= before - spent, 'charged as priced');
  });

  test('3D: the GLB fal made is copied in, though its server calls it application/octet-stream', async () => {
    const created = await post<{ generation_id: string }>('/api/v1/models-3d/generate', {
      prompt: 'a wooden chair',
      model: 'meshy-6-preview',
      settings: { topology: 'quad', target_polycount: 20_000 },
    });
    const done = await waitForGeneration(server, team.key, created.generation_id, 30_000);
    assert.equal(done.status, 'completed', JSON.stringify(done.items));
    const url = done.items[0]?.url ?? '';
    assert.ok(url.endsWith('.glb'), url);
    const file = await fetch(url);
    assert.equal(file.headers.get('content-type'), 'model/gltf-binary');
    const doc = await new NodeIO().readBinary(new Uint8Array(await file.arrayBuffer()));
    assert.equal(doc.getRoot().listMeshes().length, 1);
    const sent = sentWith('a wooden chair');
    assert.equal(sent.endpoint, 'fal-ai/meshy/v6-preview/text-to-3d');
    assert.equal(sent.input.topology, 'quad');
    assert.equal(sent.input.target_polycount, 20_000);
  });

  test('the synchronous LoRA video endpoint answers with the video fal made', async () => {
    const answer = await post<{ video_url: string }>('/api/v1/videos/wan-2.2-lora', {
      mode: 't2v',
      prompt: 'a paper boat on a river',
      loras: [{ path: weights.url('boat.safetensors'), scale: 0.8, transformer: 'low' }],
      settings: { resolution: '480p', num_frames: 81, frames_per_second: 16 },
    });
    assert.ok(answer.video_url.startsWith(`${server.url}/media/`), answer.video_url);
    const probe = await probeMedia(Buffer.from(await (await fetch(answer.video_url)).arrayBuffer()));
    assert.ok(probe.hasVideo);
    const sent = sentWith('a paper boat on a river');
    assert.equal(sent.endpoint, 'fal-ai/wan/v2.2-a14b/text-to-video/lora');
    const [lora] = sent.input.loras as Array<{ path: string; scale: number; transformer: string }>;
    assert.deepEqual({ ...lora, path: undefined }, { path: undefined, scale: 0.8, transformer: 'low' });
    // Our copy of the weights, under their own file name, at a signed URL of ours.
    assert.match(
      lora?.path ?? '',
      new RegExp(`^${server.url}/media/gen_[^?]+/input-[0-9a-f]{32}/boat\\.safetensors\\?`),
    );
    assert.equal(sent.input.num_frames, 81);
  });

  test('a talking head with uploaded audio sends the portrait and the audio', async () => {
    const created = await post<{ generation_id: string }>('/api/v1/videos/talking-head', {
      audio_mode: 'upload',
      audio_url: speechUrl,
      start_image_url: imageUrl,
      model: 'omnihuman-1.5',
    });
    await videoOf(await waitForGeneration(server, team.key, created.generation_id, 30_000));
    const sent = fal.submissions.filter((s) => s.endpoint === 'fal-ai/bytedance/omnihuman/v1.5').at(-1);
    assert.equal(sent?.input.image_url, imageUrl);
    assert.equal(sent?.input.audio_url, speechUrl);
  });

  test('a voiced talking head and an influencer video: the voice speaks, fal animates, the files come home', async () => {
    const influencer = await post<{ influencer_id: string }>('/api/v1/influencers/create', {
      image_urls: [imageUrl],
    });
    await waitForInfluencer(server, team.key, influencer.influencer_id);
    await post('/api/v1/voices/generate', {
      method: 'design',
      prompt: 'a warm, bright voice',
      influencer_id: influencer.influencer_id,
    });
    const created = await post<{ generation_id: string }>('/api/v1/videos/talking-head', {
      script: 'Welcome to the show, everyone.',
      influencer_id: influencer.influencer_id,
      start_image_url: imageUrl,
      model: 'omnihuman-1.5',
    });
    await videoOf(await waitForGeneration(server, team.key, created.generation_id, 30_000));
    const sent = fal.submissions.filter((s) => s.endpoint === 'fal-ai/bytedance/omnihuman/v1.5').at(-1);
    const audioUrl = String(sent?.input.audio_url ?? '');
    assert.ok(audioUrl.startsWith(`${server.url}/media/`), `our own stored speech: ${audioUrl}`);
    const speech = await probeMedia(Buffer.from(await (await fetch(audioUrl)).arrayBuffer()));
    assert.ok(speech.hasAudio && speech.durationSeconds > 1, 'the script, spoken');

    // The same influencer's video: its frames through the influencer route, then the video between
    // them, then the dialog spoken in the voice as its sound.
    const video = await post<{ generation_id: string }>('/api/v1/influencers/video', {
      influencer_id: influencer.influencer_id,
      prompt: 'walking along the pier',
      dialog: 'The sea is calm today and the light is perfect for a long walk.',
    });
    const done = await waitForGeneration(server, team.key, video.generation_id, 60_000);
    assert.equal(done.status, 'completed', JSON.stringify(done.items));
    const frames = fal.submissions.filter((s) => String(s.input.prompt).includes('walking along the pier, '));
    assert.deepEqual(frames.map((s) => s.endpoint).sort(), [
      'fal-ai/flux-pro/kontext/multi',
      'fal-ai/flux-pro/kontext/multi',
    ]);
    const clip = sentWith('walking along the pier; ');
    assert.equal(clip.endpoint, 'fal-ai/bytedance/seedance/v1/pro/image-to-video');
    const [first, last] = [done.items[0]?.url, done.items[1]?.url];
    assert.equal(clip.input.image_url, first, 'the video starts on the stored opening frame');
    assert.equal(clip.input.end_image_url, last, 'and ends on the closing one');
    const voiced = await probeMedia(Buffer.from(await (await fetch(done.items[2]?.url ?? '')).arrayBuffer()));
    assert.ok(voiced.hasVideo && voiced.hasAudio, 'the dialog, spoken, is its sound');
    assert.ok(voiced.durationSeconds > 3, `held on its last frame while the dialog runs: ${voiced.durationSeconds} s`);
  });
});

// The simulator's videos.
import { OperationName } from '../../../catalog/operation-names.ts';
import { PRESET_VOICES, type VoiceProfile } from '../../../catalog/voices.ts';
import { probeMedia } from '../../../lib/ffmpeg.ts';
import { renderMusic } from '../../../render/audio.ts';
import { renderImage } from '../../../render/images.ts';
import { synthesizeSpeech } from '../../../render/speech.ts';
import {
  concatVideos,
  renderVideo,
  replaceAudio,
  talkingHeadVideo,
  transferMotion,
  upscaleVideo,
  videoDimensions,
} from '../../../render/video.ts';
import type { WorkItem } from '../../types.ts';
import { needed, type Simulation, simulateProviderCall, simulationFor } from '../common.ts';

async function seedOf(item: WorkItem): Promise<number> {
  return Number(item.input.seed ?? 0);
}

/** The voice a script is spoken with: a stored profile, or the first built-in preset. */
function profileOf(value: VoiceProfile | null | undefined): VoiceProfile {
  return value ?? (PRESET_VOICES[0]?.profile as VoiceProfile);
}

const generate = simulationFor('video', async (ctx, item, r) => {
  await simulateProviderCall([r.prompt], ctx.simulatorDelayMs, ctx.signal, item.position);
  const { width, height } = videoDimensions(r.aspectRatio, r.resolution);
  const duration = r.durationSeconds;
  const startFrame = r.firstFrame ? await ctx.fetchMedia(r.firstFrame) : undefined;
  const audio = r.audio
    ? (
        await renderMusic({
          title: r.prompt,
          style: 'cinematic ambient',
          instrumental: true,
          seed: await seedOf(item),
          durationSeconds: duration,
          model: item.model ?? '',
        })
      ).data
    : undefined;
  return renderVideo({
    prompt: r.prompt,
    seed: await seedOf(item),
    model: item.model ?? '',
    width,
    height,
    durationSeconds: duration,
    fps: r.fps,
    startFrame,
    audio,
    variant: r.family ? JSON.stringify(r.family) : undefined,
  });
});

const lipsync = simulationFor('lipsync', async (ctx, _item, r) => {
  await simulateProviderCall([], ctx.simulatorDelayMs, ctx.signal);
  const [video, audio] = await Promise.all([ctx.fetchMedia(r.videoUrl), ctx.fetchMedia(r.audioUrl)]);
  return replaceAudio(video, audio);
});

const motion = simulationFor('motion', async (ctx, _item, r) => {
  await simulateProviderCall([r.prompt], ctx.simulatorDelayMs, ctx.signal);
  const [reference, image] = await Promise.all([ctx.fetchMedia(r.videoUrl), ctx.fetchMedia(r.imageUrl)]);
  const probe = await probeMedia(reference);
  // Even dimensions for H.264, at most 1080 on the long side.
  const scale = Math.min(1, 1080 / Math.max(probe.width ?? 720, probe.height ?? 720));
  const even = (n: number) => Math.max(2, Math.round((n * scale) / 2) * 2);
  return transferMotion(reference, image, { width: even(probe.width ?? 720), height: even(probe.height ?? 720) });
});

const reference = simulationFor('reference', async (ctx, item, r) => {
  const drawn = needed(r.drawn, 'drawn shots');
  const shots = drawn.shots;
  await simulateProviderCall([drawn.prompt, ...shots.map((s) => s.prompt)], ctx.simulatorDelayMs, ctx.signal);
  const { width, height } = videoDimensions(r.aspectRatio, r.resolution);
  const references = await Promise.all(drawn.images.map((u) => ctx.fetchMedia(u)));
  const start = r.startFrame ? await ctx.fetchMedia(r.startFrame) : references[0];
  const end = r.endFrame ? await ctx.fetchMedia(r.endFrame) : undefined;
  let audio: Buffer | undefined;
  if (r.script) {
    // Native audio voices the script; the others get it by voice conversion after the video.
    const speech = await synthesizeSpeech(r.script, profileOf(r.voiceProfile), { format: 'wav' });
    audio = speech.data;
  }
  const seed = await seedOf(item);
  const parts = [];
  for (const [i, shot] of shots.entries()) {
    parts.push(
      await renderVideo({
        prompt: shot.prompt,
        seed: seed + i,
        model: item.model ?? '',
        width,
        height,
        durationSeconds: shot.durationSeconds,
        fps: 24,
        startFrame: i === 0 ? start : references[i % Math.max(1, references.length)],
        endFrame: i === shots.length - 1 ? end : undefined,
      }),
    );
  }
  const video =
    parts.length === 1 ? (parts[0] as (typeof parts)[number]) : await concatVideos(parts.map((p) => p.data));
  return audio ? replaceAudio(video.data, audio, { lipSync: false }) : video;
});

const talkingHead = simulationFor('talking_head', async (ctx, item, r) => {
  await simulateProviderCall([r.script], ctx.simulatorDelayMs, ctx.signal);
  const { width, height } = videoDimensions(r.aspectRatio, r.resolution);
  const settings = needed(r.speech, 'speech settings');
  // The speech the operation made (or the upload), as a vendor is given it; a model that reads the
  // script itself speaks it here.
  const audio =
    r.audioUrl || settings.mode === 'upload'
      ? await ctx.fetchMedia(r.audioUrl)
      : (
          await synthesizeSpeech(r.script ?? '', profileOf(settings.voiceProfile), {
            speed: settings.speed,
            volume: settings.volume,
            emotion: settings.emotion,
            language: settings.language,
            format: 'wav',
          })
        ).data;
  let image: Buffer;
  if (r.imageUrl) {
    image = await ctx.fetchMedia(r.imageUrl);
  } else {
    const template = r.template;
    image = (
      await renderImage({
        prompt: `${template?.id ?? 'studio'} ${template?.angle ?? ''} ${r.script ?? ''}`,
        seed: await seedOf(item),
        width,
        height,
        model: item.model ?? '',
      })
    ).data;
  }
  return talkingHeadVideo(image, audio, { width, height, fps: 25, maxDurationSeconds: r.durationSeconds });
});

const upscale = simulationFor('upscale', async (ctx, _item, r) => {
  await simulateProviderCall([], ctx.simulatorDelayMs, ctx.signal);
  const video = await ctx.fetchMedia(r.videoUrl);
  return upscaleVideo(video, { factor: r.factor, targetFps: r.targetFps ?? undefined });
});

const lora = simulationFor('video', async (ctx, item, r) => {
  await simulateProviderCall([r.prompt], ctx.simulatorDelayMs, ctx.signal);
  const { width, height } = videoDimensions(r.aspectRatio, r.resolution);
  const startFrame = r.firstFrame ? await ctx.fetchMedia(r.firstFrame) : undefined;
  return renderVideo({
    prompt: r.prompt,
    seed: Number(r.seed ?? 0),
    model: item.model ?? '',
    width,
    height,
    durationSeconds: r.durationSeconds,
    fps: r.fps,
    startFrame,
    variant: JSON.stringify(needed(r.givenLoras, 'LoRAs as given')),
  });
});

/** The simulator's runs of these operations. */
export const videoSimulations: Record<string, Simulation> = {
  [OperationName.videoGenerate]: generate,
  [OperationName.videoLipsync]: lipsync,
  [OperationName.videoMotion]: motion,
  [OperationName.videoReference]: reference,
  [OperationName.videoTalkingHead]: talkingHead,
  [OperationName.videoUpscale]: upscale,
  [OperationName.videoLora]: lora,
};

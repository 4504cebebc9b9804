// The simulator's video and audio renderers: real, decodable media of the requested shape,
// deterministic in every input, checked by decoding the outputs again (ffprobe for the
// containers and streams, ffmpeg for frames and PCM). Standalone (no database):
// node --test test/simulator-media.test.ts

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import sharp from 'sharp';
import { WorkError } from '../src/lib/errors.ts';
import { extractFrame, type ProbeResult, probeMedia, readOutput, runFfmpeg, withTempDir } from '../src/lib/ffmpeg.ts';
import { type AudioFormat, decodeAudio, encodeAudio, planMusic, renderMusic } from '../src/render/audio.ts';
import {
  concatVideos,
  renderVideo,
  replaceAudio,
  talkingHeadVideo,
  transferMotion,
  upscaleVideo,
  type VideoRenderRequest,
  videoDimensions,
} from '../src/render/video.ts';
import { difference } from './pixel-helpers.ts';

const BASE: VideoRenderRequest = {
  prompt: 'a lighthouse on a cliff above crashing waves at sunset',
  seed: 7,
  model: 'sim-video',
  width: 320,
  height: 180,
  durationSeconds: 1.5,
  fps: 24,
};
/** Mean absolute difference (0..255) above which two frames count as visibly different. */
const VISIBLY_DIFFERENT = 12;
/** ... and below which a frame counts as showing the same picture (after H.264 and YUV round trips). */
const SAME_PICTURE = 6;

// ---------------------------------------------------------------------------------------
// Helpers: pictures, sounds and their comparison.

/** `image` cover-cropped to width x height, as the renderer is documented to do. */
async function cover(image: Buffer, width: number, height: number): Promise<Buffer> {
  return sharp(image).resize(width, height, { fit: 'cover', position: 'centre' }).png().toBuffer();
}

/** A test picture: a coloured background, a square and a stripe, so crops and colours show. */
async function picture(
  width: number,
  height: number,
  background: { r: number; g: number; b: number },
  square: { r: number; g: number; b: number },
): Promise<Buffer> {
  const block = (w: number, h: number, colour: { r: number; g: number; b: number }) =>
    sharp({ create: { width: w, height: h, channels: 3, background: colour } })
      .png()
      .toBuffer();
  return sharp({ create: { width, height, channels: 3, background } })
    .composite([
      {
        input: await block(Math.round(width * 0.3), Math.round(height * 0.4), square),
        left: Math.round(width * 0.35),
        top: Math.round(height * 0.3),
      },
      {
        input: await block(width, Math.round(height * 0.08), { r: 250, g: 250, b: 250 }),
        left: 0,
        top: Math.round(height * 0.8),
      },
    ])
    .png()
    .toBuffer();
}

function sineTone(frequency: number, seconds: number, amplitude = 0.5, sampleRate = 44100): Float32Array {
  const out = new Float32Array(Math.round(seconds * sampleRate));
  for (let i = 0; i < out.length; i++) out[i] = amplitude * Math.sin((2 * Math.PI * frequency * i) / sampleRate);
  return out;
}

async function wav(samples: Float32Array, sampleRate = 44100): Promise<Buffer> {
  return (await encodeAudio({ samples, sampleRate, channels: 1 }, 'wav')).data;
}

function rms(samples: Float32Array, from = 0, to = samples.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += (samples[i] ?? 0) ** 2;
  return Math.sqrt(sum / Math.max(1, to - from));
}

/** In-place radix-2 FFT (re, im of a power-of-two length). */
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j] ?? 0, re[i] ?? 0];
      [im[i], im[j]] = [im[j] ?? 0, im[i] ?? 0];
    }
  }
  for (let size = 2; size <= n; size <<= 1) {
    const angle = (-2 * Math.PI) / size;
    for (let start = 0; start < n; start += size) {
      for (let k = 0; k < size / 2; k++) {
        const wr = Math.cos(angle * k);
        const wi = Math.sin(angle * k);
        const a = start + k;
        const b = a + size / 2;
        const tr = (re[b] ?? 0) * wr - (im[b] ?? 0) * wi;
        const ti = (re[b] ?? 0) * wi + (im[b] ?? 0) * wr;
        re[b] = (re[a] ?? 0) - tr;
        im[b] = (im[a] ?? 0) - ti;
        re[a] = (re[a] ?? 0) + tr;
        im[a] = (im[a] ?? 0) + ti;
      }
    }
  }
}

/** Magnitude spectra of Hann-windowed frames. */
function spectra(samples: Float32Array, size: number, hop: number): Float64Array[] {
  const out: Float64Array[] = [];
  for (let start = 0; start + size <= samples.length; start += hop) {
    const re = new Float64Array(size);
    const im = new Float64Array(size);
    for (let i = 0; i < size; i++) re[i] = (samples[start + i] ?? 0) * (0.5 - 0.5 * Math.cos((2 * Math.PI * i) / size));
    fft(re, im);
    const mag = new Float64Array(size / 2);
    for (let k = 0; k < size / 2; k++) mag[k] = Math.hypot(re[k] ?? 0, im[k] ?? 0);
    out.push(mag);
  }
  return out;
}

/** Onsets per second: peaks of the spectral flux (rises of log magnitude) well above their surroundings. */
function onsetRate(samples: Float32Array, sampleRate: number): number {
  const frames = spectra(samples, 512, 256);
  const flux = frames.map((mag, t) => {
    const previous = frames[t - 1];
    if (!previous) return 0;
    let sum = 0;
    for (let k = 1; k < mag.length; k++)
      sum += Math.max(0, Math.log1p(100 * (mag[k] ?? 0)) - Math.log1p(100 * (previous[k] ?? 0)));
    return sum;
  });
  // Relative to the track's strong onsets, so level and timbre do not matter.
  const strong = [...flux].sort((a, b) => a - b)[Math.floor(flux.length * 0.98)] || 1;
  const novelty = flux.map((f) => f / strong);
  let onsets = 0;
  let last = -10;
  for (let t = 1; t < novelty.length - 1; t++) {
    const f = novelty[t] ?? 0;
    let local = 0;
    let count = 0;
    for (let u = Math.max(0, t - 16); u <= Math.min(novelty.length - 1, t + 16); u++, count++) local += novelty[u] ?? 0;
    const peak = f >= (novelty[t - 1] ?? 0) && f >= (novelty[t + 1] ?? 0);
    if (peak && f > (local / count) * 1.2 + 0.2 && t - last >= 4) {
      onsets++;
      last = t;
    }
  }
  return onsets / (samples.length / sampleRate);
}

/** Centroid (Hz) of the average power spectrum between lo and hi Hz. */
function bandCentroid(samples: Float32Array, sampleRate: number, lo: number, hi: number): number {
  const size = 4096;
  const frames = spectra(samples, size, size);
  let weighted = 0;
  let total = 0;
  for (const mag of frames) {
    for (let k = 0; k < mag.length; k++) {
      const hz = (k * sampleRate) / size;
      if (hz < lo || hz > hi) continue;
      const power = (mag[k] ?? 0) ** 2;
      weighted += power * hz;
      total += power;
    }
  }
  return weighted / total;
}

function assertWorkError(err: unknown, retryable = false): true {
  assert.ok(err instanceof WorkError, `expected a WorkError, got ${String(err)}`);
  assert.equal(err.retryable, retryable);
  return true;
}

function assertVideo(probe: ProbeResult, width: number, height: number, fps: number, seconds: number): void {
  assert.equal(probe.videoCodec, 'h264');
  assert.equal(probe.pixelFormat, 'yuv420p');
  assert.match(probe.format, /mp4/);
  assert.equal(probe.width, width);
  assert.equal(probe.height, height);
  assert.ok(Math.abs((probe.fps ?? 0) - fps) < 0.01, `fps ${probe.fps} != ${fps}`);
  const duration = probe.videoDurationSeconds ?? probe.durationSeconds;
  assert.ok(Math.abs(duration - seconds) <= 1 / fps + 1e-6, `duration ${duration} != ${seconds} ± 1 frame`);
  assert.ok(
    Math.abs(probe.durationSeconds - seconds) <= 1 / fps + 1e-6,
    `container ${probe.durationSeconds} != ${seconds}`,
  );
}

// ---------------------------------------------------------------------------------------

describe('videoDimensions', () => {
  test('short side is the resolution, long side follows the ratio, both even', () => {
    assert.deepEqual(videoDimensions('16:9', '720p'), { width: 1280, height: 720 });
    assert.deepEqual(videoDimensions('9:16', '1080p'), { width: 1080, height: 1920 });
    assert.deepEqual(videoDimensions('1:1', '720p'), { width: 720, height: 720 });
    assert.deepEqual(videoDimensions('4:3', '720p'), { width: 960, height: 720 });
    assert.deepEqual(videoDimensions('21:9', '480p'), { width: 1120, height: 480 });
    assert.deepEqual(videoDimensions('9:16', '4k'), { width: 2160, height: 3840 });
    const odd = videoDimensions('9:16', '240p');
    assert.equal(odd.width % 2, 0);
    assert.equal(odd.height % 2, 0);
  });

  test('rejects what it cannot read', () => {
    assert.throws(
      () => videoDimensions('wide', '720p'),
      (err) => assertWorkError(err),
    );
    assert.throws(
      () => videoDimensions('16:9', 'huge'),
      (err) => assertWorkError(err),
    );
    assert.throws(
      () => videoDimensions('0:9', '720p'),
      (err) => assertWorkError(err),
    );
  });
});

describe('probeMedia', () => {
  test('undecodable bytes are a non-retryable ProviderError', async () => {
    await assert.rejects(probeMedia(Buffer.from('certainly not a video')), (err) => assertWorkError(err));
    await assert.rejects(probeMedia(Buffer.alloc(0)), (err) => assertWorkError(err));
  });
});

describe('renderVideo', () => {
  test('H.264 MP4 of the exact size, frame rate and duration', async () => {
    const cases = [
      { ...videoDimensions('16:9', '240p'), durationSeconds: 2, fps: 24 },
      { ...videoDimensions('9:16', '240p'), durationSeconds: 1, fps: 30 },
      { ...videoDimensions('1:1', '160p'), durationSeconds: 1.25, fps: 12 },
      { ...videoDimensions('4:3', '180p'), durationSeconds: 1, fps: 30000 / 1001 },
    ];
    for (const c of cases) {
      const file = await renderVideo({ ...BASE, ...c });
      assert.equal(file.contentType, 'video/mp4');
      assert.equal(file.extension, 'mp4');
      const probe = await probeMedia(file.data);
      assertVideo(probe, c.width, c.height, c.fps, c.durationSeconds);
      assert.equal(probe.frameCount, Math.round(c.durationSeconds * c.fps));
      assert.equal(probe.hasAudio, false);
    }
  });

  test('same inputs give the same bytes; the seed changes them', async () => {
    const [a, b, c] = await Promise.all([renderVideo(BASE), renderVideo(BASE), renderVideo({ ...BASE, seed: 8 })]);
    assert.ok(a.data.equals(b.data));
    assert.ok(!a.data.equals(c.data));
  });

  test('the prompt shapes the picture, and the picture moves', async () => {
    const [a, b] = await Promise.all([
      renderVideo(BASE),
      renderVideo({ ...BASE, prompt: 'a green forest with emerald leaves' }),
    ]);
    const [a0, b0, aLast] = await Promise.all([
      extractFrame(a.data),
      extractFrame(b.data),
      extractFrame(a.data, 'last'),
    ]);
    assert.ok((await difference(a0, b0)) > VISIBLY_DIFFERENT, 'different prompts, different first frames');
    assert.ok((await difference(a0, aLast)) > 3, 'the first and last frames differ');
  });

  test('image-to-video starts on the start frame and ends on the end frame', async () => {
    const start = await picture(400, 300, { r: 200, g: 40, b: 40 }, { r: 20, g: 200, b: 90 });
    const end = await picture(300, 300, { r: 30, g: 60, b: 200 }, { r: 240, g: 220, b: 40 });
    const { width, height } = BASE;
    const file = await renderVideo({ ...BASE, startFrame: start, endFrame: end });
    assertVideo(await probeMedia(file.data), width, height, BASE.fps, BASE.durationSeconds);
    const [first, last, startCover, endCover] = await Promise.all([
      extractFrame(file.data),
      extractFrame(file.data, 'last'),
      cover(start, width, height),
      cover(end, width, height),
    ]);
    assert.ok((await difference(first, startCover)) < SAME_PICTURE, 'frame 0 shows the start image');
    assert.ok((await difference(first, endCover)) > 40, 'frame 0 is not the end image');
    assert.ok((await difference(last, endCover)) < SAME_PICTURE, 'the last frame shows the end image');
    // Start frame only: the video opens on it and then moves away from it.
    const only = await renderVideo({ ...BASE, startFrame: start });
    const [onlyFirst, onlyLast] = await Promise.all([extractFrame(only.data), extractFrame(only.data, 'last')]);
    assert.ok((await difference(onlyFirst, startCover)) < SAME_PICTURE);
    assert.ok((await difference(onlyLast, startCover)) > 3);
  });

  test('audio is muxed as AAC and cut or padded to the video', async () => {
    for (const seconds of [3, 0.5]) {
      const file = await renderVideo({ ...BASE, durationSeconds: 2, audio: await wav(sineTone(440, seconds)) });
      const probe = await probeMedia(file.data);
      assertVideo(probe, BASE.width, BASE.height, BASE.fps, 2);
      assert.equal(probe.hasAudio, true);
      assert.equal(probe.audioCodec, 'aac');
    }
  });

  test('bad inputs are non-retryable WorkErrors', async () => {
    await assert.rejects(renderVideo({ ...BASE, width: 321 }), (err) => assertWorkError(err));
    await assert.rejects(renderVideo({ ...BASE, fps: 0 }), (err) => assertWorkError(err));
    await assert.rejects(renderVideo({ ...BASE, durationSeconds: 0 }), (err) => assertWorkError(err));
    await assert.rejects(renderVideo({ ...BASE, startFrame: Buffer.from('nope') }), (err) => assertWorkError(err));
    await assert.rejects(renderVideo({ ...BASE, audio: Buffer.from('nope') }), (err) => assertWorkError(err));
  });
});

describe('video transformations', () => {
  let clip: Buffer; // 160x90, 1 s at 24 fps, with sound
  let silentClip: Buffer; // 320x180, 2 s at 24 fps, no sound
  before(async () => {
    [clip, silentClip] = await Promise.all([
      renderVideo({ ...BASE, width: 160, height: 90, durationSeconds: 1, audio: await wav(sineTone(330, 1)) }).then(
        (f) => f.data,
      ),
      renderVideo({ ...BASE, durationSeconds: 2 }).then((f) => f.data),
    ]);
  });

  test('upscaleVideo multiplies the size, keeps the duration and honours targetFps', async () => {
    const [x2, x4, tall, smooth] = await Promise.all([
      upscaleVideo(clip, { factor: 2 }),
      upscaleVideo(clip, { factor: 4 }),
      upscaleVideo(clip, { targetHeight: 270 }),
      upscaleVideo(clip, { factor: 2, targetFps: 48 }),
    ]);
    assertVideo(await probeMedia(x2.data), 320, 180, 24, 1);
    assertVideo(await probeMedia(x4.data), 640, 360, 24, 1);
    assertVideo(await probeMedia(tall.data), 480, 270, 24, 1);
    const smoothProbe = await probeMedia(smooth.data);
    assertVideo(smoothProbe, 320, 180, 48, 1);
    assert.equal(smoothProbe.hasAudio, true);
    // The picture survives upscaling.
    const [before0, after0] = await Promise.all([extractFrame(clip), extractFrame(x4.data)]);
    assert.ok((await difference(before0, after0)) < SAME_PICTURE);
    await assert.rejects(upscaleVideo(clip, { factor: 0.5 }), (err) => assertWorkError(err));
  });

  test('replaceAudio keeps the frames and duration and carries the new sound', async () => {
    const loud = await replaceAudio(silentClip, await wav(sineTone(440, 3)));
    const quiet = await replaceAudio(silentClip, await wav(new Float32Array(44100 * 3)));
    const short = await replaceAudio(silentClip, await wav(sineTone(440, 1)));
    for (const file of [loud, quiet, short]) {
      const probe = await probeMedia(file.data);
      assertVideo(probe, BASE.width, BASE.height, BASE.fps, 2);
      assert.equal(probe.audioCodec, 'aac');
    }
    const [loudPcm, quietPcm, shortPcm] = await Promise.all([
      decodeAudio(loud.data, 16000),
      decodeAudio(quiet.data, 16000),
      decodeAudio(short.data, 16000),
    ]);
    assert.ok(Math.abs(rms(loudPcm.samples) - 0.5 / Math.SQRT2) < 0.06, `tone RMS ${rms(loudPcm.samples)}`);
    assert.ok(rms(quietPcm.samples) < 0.005, `silence RMS ${rms(quietPcm.samples)}`);
    // A short sound is padded with silence to the video's length.
    assert.ok(Math.abs(shortPcm.samples.length / 16000 - 2) < 0.05);
    assert.ok(rms(shortPcm.samples, 0, 14000) > 0.25);
    assert.ok(rms(shortPcm.samples, 20000, 30000) < 0.005);
    const [before0, after0] = await Promise.all([extractFrame(silentClip), extractFrame(loud.data)]);
    assert.ok((await difference(before0, after0)) < SAME_PICTURE, 'the frames are kept');
    // Without lip sync only the sound changes: the frames are the very same.
    const swapped = await replaceAudio(silentClip, await wav(sineTone(440, 3)), { lipSync: false });
    const swappedProbe = await probeMedia(swapped.data);
    assertVideo(swappedProbe, BASE.width, BASE.height, BASE.fps, 2);
    assert.equal(swappedProbe.audioCodec, 'aac');
    assert.equal(await difference(before0, await extractFrame(swapped.data)), 0);
    await assert.rejects(replaceAudio(silentClip, silentClip), (err) => assertWorkError(err));
  });

  test('talkingHeadVideo lasts as long as the audio, capped, and moves its mouth with it', async () => {
    const face = await picture(300, 400, { r: 230, g: 190, b: 160 }, { r: 120, g: 80, b: 60 });
    // Half a second of silence, then a second of speech-loud tone.
    const speech = new Float32Array(44100 * 1.5);
    speech.set(sineTone(220, 1, 0.6), 22050);
    const audio = await wav(speech);
    const full = await talkingHeadVideo(face, audio, { width: 256, height: 256, fps: 25, maxDurationSeconds: 10 });
    const capped = await talkingHeadVideo(face, audio, { width: 256, height: 256, fps: 25, maxDurationSeconds: 1 });
    const fullProbe = await probeMedia(full.data);
    assertVideo(fullProbe, 256, 256, 25, 1.5);
    assert.equal(fullProbe.hasAudio, true);
    assertVideo(await probeMedia(capped.data), 256, 256, 25, 1);
    const [silent, talking, image] = await Promise.all([
      extractFrame(full.data, 0.2),
      extractFrame(full.data, 1.0),
      cover(face, 256, 256),
    ]);
    assert.ok((await difference(silent, image)) < SAME_PICTURE, 'the face is the given image');
    const mouth = { left: 96, top: 140, width: 64, height: 40 };
    const region = (png: Buffer) => sharp(png).extract(mouth).png().toBuffer();
    const [m0, m1] = await Promise.all([region(silent), region(talking)]);
    assert.ok((await difference(m0, m1)) > 4, 'the mouth opens when the audio is loud');
  });

  test('transferMotion follows the reference video in duration and frame rate', async () => {
    const reference = await withTempDir(async (dir) => {
      const output = join(dir, 'reference.mp4');
      await runFfmpeg([
        '-f',
        'lavfi',
        '-i',
        'testsrc=size=160x120:rate=15:duration=1.6',
        '-c:v',
        'libx264',
        '-pix_fmt',
        'yuv420p',
        '-y',
        output,
      ]);
      return readOutput(output, 'reference');
    });
    const image = await picture(300, 300, { r: 40, g: 120, b: 200 }, { r: 250, g: 200, b: 30 });
    const file = await transferMotion(reference, image, { width: 240, height: 320 });
    const probe = await probeMedia(file.data);
    assertVideo(probe, 240, 320, 15, 1.6);
    const [first, last] = await Promise.all([extractFrame(file.data), extractFrame(file.data, 'last')]);
    assert.ok((await difference(first, last)) > 2, 'the character moves');
    await assert.rejects(transferMotion(Buffer.from('nope'), image, { width: 240, height: 320 }), (err) =>
      assertWorkError(err),
    );
  });

  test('concatVideos joins parts into one MP4', async () => {
    const joined = await concatVideos([
      silentClip,
      silentClip,
      await replaceAudio(silentClip, await wav(sineTone(440, 2))).then((f) => f.data),
    ]);
    const probe = await probeMedia(joined.data);
    assertVideo(probe, BASE.width, BASE.height, BASE.fps, 6);
    assert.equal(probe.hasAudio, true);
    const silentOnly = await probeMedia((await concatVideos([silentClip, silentClip])).data);
    assertVideo(silentOnly, BASE.width, BASE.height, BASE.fps, 4);
    assert.equal(silentOnly.hasAudio, false);
    await assert.rejects(concatVideos([]), (err) => assertWorkError(err));
  });
});

describe('encodeAudio and decodeAudio', () => {
  test('each format probes as its codec, with the right content type', async () => {
    const samples = sineTone(440, 1, 0.5, 24000);
    const expected: Record<Exclude<AudioFormat, 'pcm'>, { codec: string; contentType: string }> = {
      mp3: { codec: 'mp3', contentType: 'audio/mpeg' },
      wav: { codec: 'pcm_s16le', contentType: 'audio/wav' },
      ogg: { codec: 'vorbis', contentType: 'audio/ogg' },
      flac: { codec: 'flac', contentType: 'audio/flac' },
      aac: { codec: 'aac', contentType: 'audio/aac' },
    };
    await Promise.all(
      Object.entries(expected).map(async ([format, want]) => {
        const file = await encodeAudio({ samples, sampleRate: 24000, channels: 1 }, format as AudioFormat);
        assert.equal(file.contentType, want.contentType);
        assert.equal(file.extension, format);
        const probe = await probeMedia(file.data);
        assert.equal(probe.audioCodec, want.codec, format);
        assert.equal(probe.hasVideo, false);
        assert.ok(Math.abs(probe.durationSeconds - 1) < 0.1, `${format} lasts ${probe.durationSeconds}`);
        const decoded = await decodeAudio(file.data);
        assert.ok(Math.abs(rms(decoded.samples) - 0.5 / Math.SQRT2) < 0.03, `${format} keeps the level`);
      }),
    );
  });

  test("'pcm' is raw 16-bit little-endian, and stereo works", async () => {
    const samples = Float32Array.from([0, 0.5, -0.5, 1, -1, 0.25]);
    const raw = await encodeAudio({ samples, sampleRate: 16000, channels: 2 }, 'pcm');
    assert.equal(raw.data.length, samples.length * 2);
    assert.equal(raw.data.readInt16LE(2), Math.round(0.5 * 32767));
    assert.equal(raw.data.readInt16LE(8), -32767);
    const stereo = await encodeAudio(
      { samples: sineTone(440, 0.5, 0.5, 48000), sampleRate: 48000, channels: 2 },
      'flac',
    );
    const probe = await probeMedia(stereo.data);
    assert.equal(probe.channels, 2);
    assert.ok(Math.abs(probe.durationSeconds - 0.25) < 0.01);
    await assert.rejects(encodeAudio({ samples: new Float32Array(3), sampleRate: 16000, channels: 2 }, 'wav'), (err) =>
      assertWorkError(err),
    );
  });

  test('decodeAudio resamples to the rate asked for and rejects non-audio', async () => {
    const decoded = await decodeAudio(await wav(sineTone(440, 1)), 8000);
    assert.equal(decoded.sampleRate, 8000);
    assert.ok(Math.abs(decoded.samples.length - 8000) < 50);
    await assert.rejects(decodeAudio(Buffer.from('nope')), (err) => assertWorkError(err));
  });
});

describe('renderMusic', () => {
  const SONG = {
    title: 'City Lights',
    style: 'energetic edm',
    instrumental: true,
    seed: 3,
    durationSeconds: 12,
    model: 'sim-music',
  };

  test('an MP3 of the requested duration, deterministic', async () => {
    for (const durationSeconds of [7.5, 1]) {
      const file = await renderMusic({ ...SONG, durationSeconds });
      assert.equal(file.contentType, 'audio/mpeg');
      assert.equal(file.extension, 'mp3');
      const probe = await probeMedia(file.data);
      assert.equal(probe.audioCodec, 'mp3');
      assert.equal(probe.sampleRate, 44100);
      assert.equal(probe.channels, 2);
      assert.ok(
        Math.abs(probe.durationSeconds - durationSeconds) <= 0.1,
        `${probe.durationSeconds} != ${durationSeconds}`,
      );
    }
    const [a, b, c] = await Promise.all([renderMusic(SONG), renderMusic(SONG), renderMusic({ ...SONG, seed: 4 })]);
    assert.ok(a.data.equals(b.data));
    assert.ok(!a.data.equals(c.data));
    await assert.rejects(renderMusic({ ...SONG, durationSeconds: 0 }), (err) => assertWorkError(err));
  });

  test('a sad ballad is slower and minor, energetic edm faster and major', async () => {
    const ballad = { ...SONG, title: 'Rain', style: 'sad ballad' };
    const sadPlan = planMusic(ballad);
    const edmPlan = planMusic(SONG);
    assert.equal(sadPlan.mode, 'minor');
    assert.equal(edmPlan.mode, 'major');
    assert.ok(sadPlan.bpm < 80 && edmPlan.bpm > 120, `${sadPlan.bpm} vs ${edmPlan.bpm} bpm`);
    const [sad, edm] = await Promise.all([renderMusic(ballad), renderMusic(SONG)]);
    const [sadPcm, edmPcm] = await Promise.all([decodeAudio(sad.data, 22050), decodeAudio(edm.data, 22050)]);
    const sadRate = onsetRate(sadPcm.samples, 22050);
    const edmRate = onsetRate(edmPcm.samples, 22050);
    assert.ok(sadRate * 1.5 < edmRate, `onsets per second: ballad ${sadRate.toFixed(2)}, edm ${edmRate.toFixed(2)}`);
  });

  test('a female voice sings higher than a male voice', async () => {
    const song = {
      ...SONG,
      style: 'pop',
      instrumental: false,
      lyrics: '[Verse]\nHold me close under the neon light\nwe are singing all through the night',
      durationSeconds: 10,
    };
    const [female, male, instrumental] = await Promise.all([
      renderMusic({ ...song, vocalGender: 'f' }),
      renderMusic({ ...song, vocalGender: 'm' }),
      renderMusic({ ...song, instrumental: true }),
    ]);
    const [f, m, i] = await Promise.all([
      decodeAudio(female.data, 22050),
      decodeAudio(male.data, 22050),
      decodeAudio(instrumental.data, 22050),
    ]);
    const fc = bandCentroid(f.samples, 22050, 80, 2000);
    const mc = bandCentroid(m.samples, 22050, 80, 2000);
    assert.ok(fc > mc * 1.15, `centroid 80-2000 Hz: female ${fc.toFixed(0)} Hz, male ${mc.toFixed(0)} Hz`);
    assert.ok(!female.data.equals(instrumental.data));
    assert.ok(Math.abs(rms(i.samples) - rms(f.samples)) < 0.2);
  });
});

// Deterministic video rendering for the simulator provider. Every output is a real H.264
// (yuv420p, +faststart) MP4 of the requested size, frame rate and duration, a pure function of
// its inputs. Frames are synthesized in JavaScript as planar YUV 4:2:0 (BT.709, limited range)
// and streamed to ffmpeg's stdin: key pictures (from the image simulator, or the caller's start
// and end frames) are moved by a virtual camera (zoom and pan, bilinear and separable, so
// cheap), cross-faded and lit by a travelling glow. Text-to-video frames are drawn at a reduced
// working size and scaled up by ffmpeg; the content is smooth, so nothing visible is lost, and
// a 5 s 720p clip renders in a second or two.

import sharp from 'sharp';
import { WorkError } from '../lib/errors.ts';
import {
  AAC_OUTPUT_ARGS,
  H264_OUTPUT_ARGS,
  type ProbeResult,
  probeFile,
  rateString,
  readFrames,
  readOutput,
  runFfmpeg,
  spawnFfmpeg,
  tempInput,
  withTempDir,
} from '../lib/ffmpeg.ts';
import { decodeAudio } from './audio.ts';
import type { RenderedFile } from './file.ts';
import { renderImage } from './images.ts';
import { Rng, sha256 } from './random.ts';

/** Bumped whenever the rendering changes, so old and new outputs never share a key by accident. */
const RENDER_VERSION = 'sim-video-v1';
const MIN_SIDE = 64;
const MAX_SIDE = 4096;
const MAX_UPSCALED_SIDE = 8192;
const MAX_DURATION_SECONDS = 120;
const MAX_FPS = 120;
/** Text-to-video frames are drawn at about this many pixels and scaled up by ffmpeg. */
const T2V_WORK_PIXELS = 640 * 360;
/** Frames derived from caller images keep their detail up to this many pixels. */
const IMAGE_WORK_PIXELS = 1280 * 720;
const MP4 = { contentType: 'video/mp4', extension: 'mp4' } as const;
/** Tags matching the BT.709 limited-range YUV the frame synthesizer writes. */
const BT709_ARGS = ['-colorspace', 'bt709', '-color_primaries', 'bt709', '-color_trc', 'bt709', '-color_range', 'tv'];

// ---------------------------------------------------------------------------------------
// Sizes.

/**
 * Pixel size for an aspect ratio ('16:9') at a resolution ('720p', '1080p', '4k'): the short
 * side is the resolution's line count (both sides for 1:1), the long side follows the ratio;
 * both even. ('16:9','720p') → 1280x720, ('9:16','1080p') → 1080x1920, ('4:3','720p') → 960x720.
 */
export function videoDimensions(aspectRatio: string, resolution: string): { width: number; height: number } {
  const ratio = /^\s*(\d+(?:\.\d+)?)\s*[:x/]\s*(\d+(?:\.\d+)?)\s*$/.exec(aspectRatio);
  const rw = Number(ratio?.[1]);
  const rh = Number(ratio?.[2]);
  if (!ratio || !(rw > 0) || !(rh > 0)) throw new WorkError(`invalid aspect ratio '${aspectRatio}'`, false);
  const res = resolution.trim().toLowerCase();
  const named: Record<string, number> = { '2k': 1440, '4k': 2160, uhd: 2160, hd: 720, fhd: 1080, sd: 480 };
  const lines = named[res] ?? Number(/^(\d{2,4})p?$/.exec(res)?.[1]);
  if (!Number.isFinite(lines) || lines < MIN_SIDE || lines > MAX_SIDE) {
    throw new WorkError(`invalid resolution '${resolution}'`, false);
  }
  const even = (v: number) => Math.max(2, Math.round(v / 2) * 2);
  const long = even((lines * Math.max(rw, rh)) / Math.min(rw, rh));
  if (long > MAX_SIDE) throw new WorkError(`aspect ratio '${aspectRatio}' is too wide at ${resolution}`, false);
  const short = even(lines);
  return rw >= rh ? { width: long, height: short } : { width: short, height: long };
}

/** Even working size of about `budget` pixels (never larger than the output, at least 16 per side). */
function workingSize(width: number, height: number, budget: number): { width: number; height: number } {
  const scale = Math.min(1, Math.sqrt(budget / (width * height)));
  const even = (v: number, max: number) => Math.min(max, Math.max(16, Math.round((v * scale) / 2) * 2));
  return { width: even(width, width), height: even(height, height) };
}

function checkSize(width: number, height: number, max = MAX_SIDE): void {
  for (const [name, v] of [
    ['width', width],
    ['height', height],
  ] as const) {
    if (!Number.isInteger(v) || v < MIN_SIDE || v > max || v % 2 !== 0) {
      throw new WorkError(`${name} must be an even integer from ${MIN_SIDE} to ${max}, got ${v}`, false);
    }
  }
}

function checkFps(fps: number): void {
  if (!Number.isFinite(fps) || fps < 1 || fps > MAX_FPS) {
    throw new WorkError(`fps must be from 1 to ${MAX_FPS}, got ${fps}`, false);
  }
}

function checkDuration(seconds: number, name = 'duration'): void {
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_DURATION_SECONDS) {
    throw new WorkError(`${name} must be above 0 and at most ${MAX_DURATION_SECONDS} s, got ${seconds}`, false);
  }
}

/** A generous time limit for encoding `frames` frames of width x height. */
function encodeTimeout(frames: number, width: number, height: number): number {
  return 60_000 + Math.ceil((frames * width * height) / (1280 * 720)) * 400;
}

// ---------------------------------------------------------------------------------------
// Pictures in planar YUV 4:2:0.

/** A picture in planar YUV 4:2:0 (I420); chroma planes are half size in both directions. */
interface Yuv {
  width: number;
  height: number;
  y: Uint8Array;
  u: Uint8Array;
  v: Uint8Array;
}

/** An output frame: one Buffer (what ffmpeg reads) with clamped views on its three planes. */
interface Frame {
  width: number;
  height: number;
  data: Buffer;
  y: Uint8ClampedArray;
  u: Uint8ClampedArray;
  v: Uint8ClampedArray;
}

function newFrame(width: number, height: number): Frame {
  const ySize = width * height;
  const cSize = (width / 2) * (height / 2);
  const data = Buffer.alloc(ySize + 2 * cSize);
  const view = (offset: number, length: number) => new Uint8ClampedArray(data.buffer, data.byteOffset + offset, length);
  return { width, height, data, y: view(0, ySize), u: view(ySize, cSize), v: view(ySize + cSize, cSize) };
}

/** A decoded frame (I420 bytes from ffmpeg) as a Frame sharing its memory. */
function frameOf(data: Buffer, width: number, height: number): Frame {
  const ySize = width * height;
  const cSize = (width / 2) * (height / 2);
  const view = (offset: number, length: number) => new Uint8ClampedArray(data.buffer, data.byteOffset + offset, length);
  return { width, height, data, y: view(0, ySize), u: view(ySize, cSize), v: view(ySize + cSize, cSize) };
}

/** Converts packed 8-bit RGB (even width and height) to BT.709 limited-range I420. */
function rgbToYuv(rgb: Buffer, width: number, height: number): Yuv {
  const y = new Uint8Array(width * height);
  const cw = width / 2;
  const u = new Uint8Array(cw * (height / 2));
  const v = new Uint8Array(cw * (height / 2));
  const cb = new Float32Array(width * height);
  const cr = new Float32Array(width * height);
  for (let p = 0, i = 0; p < width * height; p++, i += 3) {
    const r = (rgb[i] ?? 0) / 255;
    const g = (rgb[i + 1] ?? 0) / 255;
    const b = (rgb[i + 2] ?? 0) / 255;
    const luma = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    y[p] = Math.round(16 + 219 * luma);
    cb[p] = (b - luma) / 1.8556;
    cr[p] = (r - luma) / 1.5748;
  }
  for (let j = 0; j < height / 2; j++) {
    for (let i = 0; i < cw; i++) {
      const p = 2 * j * width + 2 * i;
      const sum = (a: Float32Array) => (a[p] ?? 0) + (a[p + 1] ?? 0) + (a[p + width] ?? 0) + (a[p + width + 1] ?? 0);
      u[j * cw + i] = Math.round(128 + 224 * 0.25 * sum(cb));
      v[j * cw + i] = Math.round(128 + 224 * 0.25 * sum(cr));
    }
  }
  return { width, height, y, u, v };
}

/** One RGB colour (0..255) in BT.709 limited-range YUV. */
function colourToYuv([r, g, b]: [number, number, number]): [number, number, number] {
  const luma = (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  return [16 + 219 * luma, 128 + (224 * (b / 255 - luma)) / 1.8556, 128 + (224 * (r / 255 - luma)) / 1.5748];
}

/** Decodes an image and cover-crops it to exactly width x height RGB; `what` names it in errors. */
async function coverRgb(image: Buffer, width: number, height: number, what: string): Promise<Buffer> {
  try {
    const { data, info } = await sharp(image, { failOn: 'error' })
      .autoOrient()
      .resize(width, height, { fit: 'cover', position: 'centre', kernel: 'lanczos3' })
      .flatten({ background: { r: 0, g: 0, b: 0 } })
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.width !== width || info.height !== height || info.channels !== 3) throw new Error('unexpected layout');
    return data;
  } catch {
    throw new WorkError(`${what} could not be decoded as an image`, false);
  }
}

/** A virtual camera on a picture: zoom ≥ 1 and the centre of the view in picture coordinates (0..1). */
interface View {
  zoom: number;
  cx: number;
  cy: number;
}

const IDENTITY: View = { zoom: 1, cx: 0.5, cy: 0.5 };

/** Keeps the view inside the picture. */
function bounded(view: View): View {
  const zoom = Math.max(1, view.zoom);
  const half = 0.5 / zoom;
  const clampTo = (c: number) => Math.min(1 - half, Math.max(half, c));
  return { zoom, cx: clampTo(view.cx), cy: clampTo(view.cy) };
}

function lerpView(a: View, b: View, t: number): View {
  return bounded({ zoom: a.zoom + (b.zoom - a.zoom) * t, cx: a.cx + (b.cx - a.cx) * t, cy: a.cy + (b.cy - a.cy) * t });
}

function smoothstep(t: number): number {
  const x = Math.min(1, Math.max(0, t));
  return x * x * (3 - 2 * x);
}

// Scratch arrays for the separable sampler, grown on demand.
let colIndex = new Int32Array(0);
let colFrac = new Float32Array(0);

/**
 * Samples `src` through `view` into `dst` (bilinear, separable): dst = dst·(1 − weight) +
 * sample·weight, with sample = base + (value − base)·gain (gain brightens luma around black).
 */
function drawPlane(
  dst: Uint8ClampedArray,
  dw: number,
  dh: number,
  src: Uint8Array,
  sw: number,
  sh: number,
  view: View,
  weight: number,
  gain: number,
  base: number,
): void {
  if (colIndex.length < dw) {
    colIndex = new Int32Array(dw);
    colFrac = new Float32Array(dw);
  }
  const xs = colIndex;
  const fxs = colFrac;
  for (let x = 0; x < dw; x++) {
    const sx = Math.min(sw - 1, Math.max(0, (view.cx + ((x + 0.5) / dw - 0.5) / view.zoom) * sw - 0.5));
    const i = Math.min(sw - 2, Math.floor(sx));
    xs[x] = i;
    fxs[x] = sx - i;
  }
  const keep = 1 - weight;
  const offset = base * (1 - gain);
  for (let y = 0; y < dh; y++) {
    const sy = Math.min(sh - 1, Math.max(0, (view.cy + ((y + 0.5) / dh - 0.5) / view.zoom) * sh - 0.5));
    const j = Math.min(sh - 2, Math.floor(sy));
    const fy = sy - j;
    const r0 = j * sw;
    const r1 = r0 + sw;
    const o = y * dw;
    if (weight >= 1) {
      for (let x = 0; x < dw; x++) {
        const i = xs[x] as number;
        const fx = fxs[x] as number;
        const a = src[r0 + i] as number;
        const b = src[r0 + i + 1] as number;
        const c = src[r1 + i] as number;
        const d = src[r1 + i + 1] as number;
        const top = a + (b - a) * fx;
        dst[o + x] = (top + (c + (d - c) * fx - top) * fy) * gain + offset;
      }
    } else {
      for (let x = 0; x < dw; x++) {
        const i = xs[x] as number;
        const fx = fxs[x] as number;
        const a = src[r0 + i] as number;
        const b = src[r0 + i + 1] as number;
        const c = src[r1 + i] as number;
        const d = src[r1 + i + 1] as number;
        const top = a + (b - a) * fx;
        const value = (top + (c + (d - c) * fx - top) * fy) * gain + offset;
        dst[o + x] = (dst[o + x] as number) * keep + value * weight;
      }
    }
  }
}

/** Draws a whole picture through a view, blended with what the frame holds by `weight`. */
function drawLayer(frame: Frame, src: Yuv, view: View, weight: number, gain = 1): void {
  if (weight <= 0) return;
  const w = Math.min(1, weight);
  const v = bounded(view);
  drawPlane(frame.y, frame.width, frame.height, src.y, src.width, src.height, v, w, gain, 16);
  const cw = frame.width / 2;
  const ch = frame.height / 2;
  drawPlane(frame.u, cw, ch, src.u, src.width / 2, src.height / 2, v, w, 1, 128);
  drawPlane(frame.v, cw, ch, src.v, src.width / 2, src.height / 2, v, w, 1, 128);
}

/** A soft round light (Gaussian, separable) pulling pixels toward `colour` (YUV) by up to `strength`. */
function drawLight(
  frame: Frame,
  light: { x: number; y: number; radius: number; colour: [number, number, number] },
  strength: number,
): void {
  if (strength <= 0.002) return;
  const planes = [
    { data: frame.y, w: frame.width, h: frame.height, target: light.colour[0] },
    { data: frame.u, w: frame.width / 2, h: frame.height / 2, target: light.colour[1] },
    { data: frame.v, w: frame.width / 2, h: frame.height / 2, target: light.colour[2] },
  ];
  for (const { data, w, h, target } of planes) {
    const r = light.radius * Math.min(w, h);
    const cx = light.x * w;
    const cy = light.y * h;
    const x0 = Math.max(0, Math.floor(cx - 2.5 * r));
    const x1 = Math.min(w, Math.ceil(cx + 2.5 * r));
    const y0 = Math.max(0, Math.floor(cy - 2.5 * r));
    const y1 = Math.min(h, Math.ceil(cy + 2.5 * r));
    if (x0 >= x1 || y0 >= y1) continue;
    const gx = new Float32Array(x1 - x0);
    for (let x = x0; x < x1; x++) gx[x - x0] = Math.exp(-(((x + 0.5 - cx) / r) ** 2));
    for (let y = y0; y < y1; y++) {
      const gy = strength * Math.exp(-(((y + 0.5 - cy) / r) ** 2));
      const o = y * w;
      for (let x = x0; x < x1; x++) {
        const a = gy * (gx[x - x0] as number);
        const value = data[o + x] as number;
        data[o + x] = value + (target - value) * a;
      }
    }
  }
}

/** An open mouth: a dark, slightly red ellipse of the given size (fractions of the frame) and strength. */
function drawMouth(frame: Frame, cx: number, cy: number, rx: number, ry: number, amount: number): void {
  if (amount <= 0.01 || ry <= 0) return;
  const w = frame.width;
  const h = frame.height;
  const ex = rx * w;
  const ey = Math.max(0.75, ry * h);
  const px = cx * w;
  const py = cy * h;
  for (let y = Math.max(0, Math.floor(py - ey)); y < Math.min(h, Math.ceil(py + ey)); y++) {
    const dy = (y + 0.5 - py) / ey;
    for (let x = Math.max(0, Math.floor(px - ex)); x < Math.min(w, Math.ceil(px + ex)); x++) {
      const dx = (x + 0.5 - px) / ex;
      const d = dx * dx + dy * dy;
      if (d >= 1) continue;
      const k = amount * Math.min(1, (1 - d) * 3) * 0.8;
      const p = y * w + x;
      frame.y[p] = (frame.y[p] as number) * (1 - k) + 24 * k;
      if (x % 2 === 0 && y % 2 === 0) {
        const c = (y / 2) * (w / 2) + x / 2;
        frame.v[c] = (frame.v[c] as number) + 14 * k;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// Encoding.

interface EncodeOptions {
  /** Size of the frames written; scaled by ffmpeg when the output size differs. */
  frameWidth: number;
  frameHeight: number;
  width: number;
  height: number;
  fps: number;
  frameCount: number;
  /** Encoded audio file to mux as AAC, cut or padded to the video's length. */
  audioPath?: string;
  /** Colour tags; default BT.709 (what the synthesizer writes). */
  colourArgs?: string[];
  what: string;
}

/** Encodes I420 frames from `frames` into an H.264 MP4 (with optional audio) in `dir`. */
async function encodeFrames(dir: string, frames: AsyncIterable<Buffer>, opts: EncodeOptions): Promise<RenderedFile> {
  const output = `${dir}/output.mp4`;
  const durationSeconds = opts.frameCount / opts.fps;
  const scale =
    opts.frameWidth === opts.width && opts.frameHeight === opts.height
      ? []
      : ['-vf', `scale=${opts.width}:${opts.height}:flags=bicubic`];
  const audio = opts.audioPath
    ? ['-map', '1:a:0', '-af', 'apad', ...AAC_OUTPUT_ARGS, '-t', durationSeconds.toFixed(6)]
    : [];
  const args = [
    '-f',
    'rawvideo',
    '-pix_fmt',
    'yuv420p',
    '-s',
    `${opts.frameWidth}x${opts.frameHeight}`,
    '-framerate',
    rateString(opts.fps),
    '-i',
    'pipe:0',
    ...(opts.audioPath ? ['-i', opts.audioPath] : []),
    '-map',
    '0:v:0',
    ...audio,
    ...scale,
    ...H264_OUTPUT_ARGS,
    ...(opts.colourArgs ?? BT709_ARGS),
    // The pipe ends after the last frame; with audio, -t ends the (padded) sound there too.
    // (-frames:v would stop the whole output at the last video frame, cutting the sound short.)
    '-y',
    output,
  ];
  await runFfmpeg(args, {
    stdin: frames,
    what: opts.what,
    timeoutMs: encodeTimeout(opts.frameCount, opts.width, opts.height),
  });
  return {
    data: await readOutput(output, opts.what),
    ...MP4,
    width: opts.width,
    height: opts.height,
    durationSeconds,
  };
}

/** Writes `data` to the temp folder and probes it, requiring an audio stream. */
async function audioInput(dir: string, data: Buffer, what: string): Promise<{ path: string; probe: ProbeResult }> {
  const path = await tempInput(dir, 'audio-input', data);
  const probe = await probeFile(path).catch((err: unknown) => {
    if (err instanceof WorkError && !err.retryable) throw new WorkError(`${what}: ${err.message}`, false);
    throw err;
  });
  if (!probe.hasAudio) throw new WorkError(`${what} has no audio stream`, false);
  return { path, probe };
}

/** Writes `data` to the temp folder and probes it, requiring a video stream. */
async function videoInput(
  dir: string,
  data: Buffer,
  what: string,
  name = 'video-input',
): Promise<{ path: string; probe: VideoProbe }> {
  const path = await tempInput(dir, name, data);
  const probe = await probeFile(path).catch((err: unknown) => {
    if (err instanceof WorkError && !err.retryable) throw new WorkError(`${what}: ${err.message}`, false);
    throw err;
  });
  if (!probe.hasVideo || !probe.width || !probe.height) throw new WorkError(`${what} has no video stream`, false);
  const fps = probe.fps && probe.fps <= 240 ? probe.fps : 24;
  const duration = probe.videoDurationSeconds ?? probe.durationSeconds;
  if (!(duration > 0)) throw new WorkError(`${what} has no duration`, false);
  return { path, probe: { ...probe, width: probe.width, height: probe.height, fps, duration } };
}

interface VideoProbe extends ProbeResult {
  width: number;
  height: number;
  fps: number;
  /** The video stream's duration. */
  duration: number;
}

/** Streams a video's frames as I420 of the given (even) size at `fps`. */
async function* decodeFrames(
  path: string,
  width: number,
  height: number,
  fps: number,
  what: string,
  pixelFormat = 'yuv420p',
): AsyncGenerator<Buffer> {
  const frameSize = pixelFormat === 'gray' ? width * height : (width * height * 3) / 2;
  const proc = await spawnFfmpeg(
    [
      '-i',
      path,
      '-an',
      '-vf',
      `fps=${rateString(fps)},scale=${width}:${height}:flags=area,format=${pixelFormat}`,
      '-f',
      'rawvideo',
      'pipe:1',
    ],
    { what, timeoutMs: 300_000 },
  );
  let finished = false;
  try {
    yield* readFrames(proc.stdout, frameSize);
    finished = true;
  } finally {
    if (!finished) proc.kill();
    await proc.done.catch((err: unknown) => {
      if (finished) throw err;
    });
  }
}

/** Per-frame loudness 0..1 of an audio file (RMS, normalized to the loud passages, smoothed). */
async function loudnessEnvelope(audio: Buffer, fps: number, frames: number): Promise<Float32Array> {
  const { samples, sampleRate } = await decodeAudio(audio, 16000);
  const rms = new Float32Array(frames);
  const perFrame = sampleRate / fps;
  for (let i = 0; i < frames; i++) {
    const start = Math.floor(i * perFrame);
    const end = Math.min(samples.length, Math.floor((i + 1) * perFrame));
    let sum = 0;
    for (let s = start; s < end; s++) sum += (samples[s] as number) ** 2;
    rms[i] = end > start ? Math.sqrt(sum / (end - start)) : 0;
  }
  const sorted = Float32Array.from(rms).sort();
  const loud = sorted[Math.floor(0.95 * (sorted.length - 1))] ?? 0;
  const env = new Float32Array(frames);
  if (loud < 1e-3) return env;
  let level = 0;
  for (let i = 0; i < frames; i++) {
    const x = Math.min(1, (rms[i] as number) / loud);
    level += (x - level) * (x > level ? 0.8 : 0.35);
    env[i] = level;
  }
  return env;
}

function frameCountFor(seconds: number, fps: number): number {
  return Math.max(1, Math.round(seconds * fps));
}

// ---------------------------------------------------------------------------------------
// Text- and image-to-video.

/** A video request: text-to-video, or image-to-video when a start (and end) frame is given. */
export interface VideoRenderRequest {
  prompt: string;
  /** Integer; same inputs + seed → byte-identical MP4. */
  seed: number;
  /** Model id; part of the determinism key (it also picks the camera style). */
  model: string;
  /** Even, 64..4096. */
  width: number;
  height: number;
  /** Above 0, at most 120. */
  durationSeconds: number;
  /** 1..120. */
  fps: number;
  /** Image bytes: frame 0 shows this picture, cover-cropped to the size. */
  startFrame?: Buffer;
  /** Image bytes: the last frame shows this picture. */
  endFrame?: Buffer;
  /** Encoded audio (any format ffmpeg reads), muxed as AAC and cut or padded to the video's length. */
  audio?: Buffer;
  /** Extra inputs that change the result (negative prompt, camera settings, ...). */
  variant?: string;
}

/** A key picture and the camera path across its time on screen. */
interface Shot {
  picture: Yuv;
  from: View;
  to: View;
  /** Seconds during which the shot is (at least partly) visible. */
  start: number;
  end: number;
}

function randomView(rng: Rng, zoomMin: number, zoomMax: number): View {
  const zoom = rng.range(zoomMin, zoomMax);
  const half = 0.5 - 0.5 / zoom;
  return bounded({ zoom, cx: 0.5 + rng.range(-half, half), cy: 0.5 + rng.range(-half, half) });
}

/** Average colour of an RGB picture, brightened toward a light of the same hue. */
function lightColour(rgb: Buffer): [number, number, number] {
  let r = 0;
  let g = 0;
  let b = 0;
  const n = rgb.length / 3;
  for (let i = 0; i < rgb.length; i += 3) {
    r += rgb[i] as number;
    g += rgb[i + 1] as number;
    b += rgb[i + 2] as number;
  }
  const max = Math.max(r, g, b, 1) / n;
  const lift = (c: number) => Math.min(255, 0.55 * ((c / n) * (255 / max)) + 0.45 * 255);
  return colourToYuv([lift(r), lift(g), lift(b)]);
}

/** Renders one deterministic H.264 MP4 for a text-to-video or image-to-video request. */
export async function renderVideo(req: VideoRenderRequest): Promise<RenderedFile> {
  checkSize(req.width, req.height);
  checkFps(req.fps);
  checkDuration(req.durationSeconds);
  if (!Number.isFinite(req.seed)) throw new WorkError(`seed must be a finite number, got ${req.seed}`, false);
  const fromImages = req.startFrame !== undefined || req.endFrame !== undefined;
  const work = workingSize(req.width, req.height, fromImages ? IMAGE_WORK_PIXELS : T2V_WORK_PIXELS);
  const frameCount = frameCountFor(req.durationSeconds, req.fps);
  const duration = frameCount / req.fps;
  const digest = (b: Buffer | undefined) => (b ? sha256(b).toString('hex') : null);
  const key = [
    RENDER_VERSION,
    req.prompt,
    req.seed,
    req.model,
    req.width,
    req.height,
    frameCount,
    req.fps,
    req.variant ?? '',
    digest(req.startFrame),
    digest(req.endFrame),
  ];
  const rng = Rng.from(...key, 'camera');
  const motion = [0.6, 1, 1.4][sha256(req.model).readUInt32LE(0) % 3] ?? 1;

  // Key pictures: the caller's frames, else the image simulator's renders of the prompt.
  const keyPicture = async (shot: number): Promise<{ yuv: Yuv; rgb: Buffer }> => {
    const image = await renderImage({
      prompt: req.prompt,
      seed: req.seed,
      model: req.model,
      width: Math.max(64, work.width),
      height: Math.max(64, work.height),
      variant: shot === 0 ? req.variant : `${req.variant ?? ''}|shot ${shot}`,
    });
    const rgb = await coverRgb(image.data, work.width, work.height, 'key picture');
    return { yuv: rgbToYuv(rgb, work.width, work.height), rgb };
  };
  const fromImage = async (image: Buffer, what: string): Promise<{ yuv: Yuv; rgb: Buffer }> => {
    const rgb = await coverRgb(image, work.width, work.height, what);
    return { yuv: rgbToYuv(rgb, work.width, work.height), rgb };
  };

  const shots: Shot[] = [];
  let lightSource: Buffer;
  if (fromImages) {
    // Frame 0 is the start picture as given (identity view); the last frame is the end picture.
    const [start, end, prompt] = await Promise.all([
      req.startFrame ? fromImage(req.startFrame, 'start frame') : keyPicture(0),
      req.endFrame ? fromImage(req.endFrame, 'end frame') : undefined,
      // The prompt colours the light that sweeps over the picture.
      renderImage({ prompt: req.prompt, seed: req.seed, model: req.model, width: 64, height: 64 }),
    ]);
    lightSource = await coverRgb(prompt.data, 16, 16, 'prompt picture');
    const drift = randomView(rng, 1.08 + 0.06 * motion, 1.12 + 0.1 * motion);
    shots.push({
      picture: start.yuv,
      from: req.startFrame ? IDENTITY : randomView(rng, 1, 1.1),
      to: drift,
      start: 0,
      end: end ? duration * 0.8 : duration,
    });
    if (end) {
      shots.push({
        picture: end.yuv,
        from: randomView(rng, 1.08 + 0.06 * motion, 1.12 + 0.1 * motion),
        to: IDENTITY,
        start: duration * 0.3,
        end: duration,
      });
    }
  } else {
    const count = duration < 2 ? 1 : Math.min(12, Math.max(2, Math.ceil(duration / 3)));
    const pictures = await Promise.all(Array.from({ length: count }, (_, i) => keyPicture(i)));
    lightSource = pictures[0]?.rgb ?? Buffer.alloc(3);
    const segment = duration / count;
    const fade = Math.min(1.2, segment * 0.4);
    pictures.forEach((p, i) => {
      const zoomIn = rng.next() < 0.5;
      const near = randomView(rng, 1.02, 1.06 + 0.04 * motion);
      const far = randomView(rng, 1.12 + 0.08 * motion, 1.2 + 0.15 * motion);
      shots.push({
        picture: p.yuv,
        from: zoomIn ? near : far,
        to: zoomIn ? far : near,
        start: i === 0 ? 0 : i * segment - fade / 2,
        end: i === count - 1 ? duration : (i + 1) * segment + fade / 2,
      });
    });
  }

  const light = {
    colour: lightColour(lightSource),
    radius: rng.range(0.35, 0.55),
    from: { x: rng.range(-0.1, 0.4), y: rng.range(0, 0.5) },
    to: { x: rng.range(0.6, 1.1), y: rng.range(0.3, 0.9) },
    strength: rng.range(0.12, 0.22),
  };
  if (rng.next() < 0.5) [light.from, light.to] = [light.to, light.from];

  async function* frames(): AsyncGenerator<Buffer> {
    for (let i = 0; i < frameCount; i++) {
      const frame = newFrame(work.width, work.height);
      // Progress 0 at the first frame and 1 at the last, so both ends show their pictures exactly.
      const p = frameCount > 1 ? i / (frameCount - 1) : 0;
      const t = p * duration;
      let first = true;
      for (const [index, shot] of shots.entries()) {
        if (t < shot.start || t > shot.end) continue;
        const q = shot.end > shot.start ? (t - shot.start) / (shot.end - shot.start) : 0;
        const view = lerpView(shot.from, shot.to, fromImages ? smoothstep(q) : q);
        let weight = 1;
        if (!first) {
          // Cross-fade from the previous shot over the overlap of the two.
          const previous = shots[index - 1];
          const overlapEnd = previous ? Math.min(previous.end, shot.end) : shot.start;
          weight = overlapEnd > shot.start ? smoothstep((t - shot.start) / (overlapEnd - shot.start)) : 1;
        }
        drawLayer(frame, shot.picture, view, weight);
        first = false;
      }
      // The light is absent where a frame must match a given picture.
      const envelope = fromImages
        ? req.endFrame
          ? Math.sin(Math.PI * p)
          : req.startFrame
            ? Math.sin((Math.PI / 2) * p)
            : 1
        : 0.75 + 0.25 * Math.sin(2 * Math.PI * p);
      drawLight(
        frame,
        {
          x: light.from.x + (light.to.x - light.from.x) * p,
          y: light.from.y + (light.to.y - light.from.y) * p,
          radius: light.radius,
          colour: light.colour,
        },
        light.strength * envelope,
      );
      yield frame.data;
    }
  }

  return withTempDir(async (dir) => {
    const audioPath = req.audio ? (await audioInput(dir, req.audio, 'audio')).path : undefined;
    return encodeFrames(dir, frames(), {
      frameWidth: work.width,
      frameHeight: work.height,
      width: req.width,
      height: req.height,
      fps: req.fps,
      frameCount,
      audioPath,
      what: 'video encoding',
    });
  });
}

// ---------------------------------------------------------------------------------------
// Transformations of existing videos.

/** Upscale options: a factor (default 2) or a target height; optionally a new frame rate. */
export interface UpscaleOptions {
  /** Multiplies width and height (1..8). */
  factor?: number;
  /** Output height; the width keeps the aspect ratio. Wins over `factor`. */
  targetHeight?: number;
  /** Output frame rate: higher rates are interpolated (frame blending), lower ones drop frames. */
  targetFps?: number;
}

/** Upscales a video (Lanczos), keeping its duration and audio; H.264 MP4. */
export async function upscaleVideo(input: Buffer, opts: UpscaleOptions): Promise<RenderedFile> {
  return withTempDir(async (dir) => {
    const { path, probe } = await videoInput(dir, input, 'video');
    const even = (v: number) => Math.max(2, Math.round(v / 2) * 2);
    let width: number;
    let height: number;
    if (opts.targetHeight !== undefined) {
      if (!Number.isInteger(opts.targetHeight) || opts.targetHeight < MIN_SIDE) {
        throw new WorkError(`targetHeight must be an integer of at least ${MIN_SIDE}`, false);
      }
      height = even(opts.targetHeight);
      width = even((probe.width * height) / probe.height);
    } else {
      const factor = opts.factor ?? 2;
      if (!Number.isFinite(factor) || factor < 1 || factor > 8) {
        throw new WorkError(`factor must be from 1 to 8, got ${factor}`, false);
      }
      width = even(probe.width * factor);
      height = even(probe.height * factor);
    }
    if (width > MAX_UPSCALED_SIDE || height > MAX_UPSCALED_SIDE) {
      throw new WorkError(`upscaled size ${width}x${height} exceeds ${MAX_UPSCALED_SIDE} pixels on a side`, false);
    }
    const filters: string[] = [];
    let fps = probe.fps;
    if (opts.targetFps !== undefined) {
      checkFps(opts.targetFps);
      fps = opts.targetFps;
      // Interpolate at the input size (cheaper), before scaling.
      filters.push(opts.targetFps > probe.fps ? `framerate=fps=${rateString(fps)}` : `fps=${rateString(fps)}`);
    }
    filters.push(`scale=${width}:${height}:flags=lanczos`, 'setsar=1');
    const output = `${dir}/output.mp4`;
    const frames = Math.ceil(probe.duration * fps);
    const audio = probe.hasAudio
      ? ['-map', '0:a:0', ...(probe.audioCodec === 'aac' ? ['-c:a', 'copy'] : AAC_OUTPUT_ARGS)]
      : [];
    await runFfmpeg(
      [
        '-i',
        path,
        '-map',
        '0:v:0',
        ...audio,
        '-vf',
        filters.join(','),
        '-r',
        rateString(fps),
        ...H264_OUTPUT_ARGS,
        ...colourArgsOf(probe),
        '-y',
        output,
      ],
      { what: 'video upscaling', timeoutMs: encodeTimeout(frames, width, height) * 2 },
    );
    return {
      data: await readOutput(output, 'video upscaling'),
      ...MP4,
      width,
      height,
      durationSeconds: probe.durationSeconds,
    };
  });
}

/** Where the simulator assumes a face's mouth is, as fractions of the frame (a centred portrait). */
const MOUTH = { x: 0.5, y: 0.64, rx: 0.055 };

/** Colour tags of a decoded source for re-encoding its frames (limited range, as decoded). */
function colourArgsOf(probe: ProbeResult): string[] {
  return [
    ...(probe.colorSpace ? ['-colorspace', probe.colorSpace] : []),
    ...(probe.colorPrimaries ? ['-color_primaries', probe.colorPrimaries] : []),
    ...(probe.colorTransfer ? ['-color_trc', probe.colorTransfer] : []),
    '-color_range',
    'tv',
  ];
}

/** Options of replaceAudio. */
export interface ReplaceAudioOptions {
  /** Draw a mouth that opens with the sound (default true); false only swaps the sound (no re-encode of H.264). */
  lipSync?: boolean;
}

/**
 * Lip sync: keeps the video's frames and duration, replaces its sound with `audio` (AAC, cut or
 * padded with silence) and opens a mouth in the lower middle of the frame as loud as the audio.
 */
export async function replaceAudio(
  video: Buffer,
  audio: Buffer,
  opts: ReplaceAudioOptions = {},
): Promise<RenderedFile> {
  return withTempDir(async (dir) => {
    const [{ path, probe }, { path: audioPath }] = await Promise.all([
      videoInput(dir, video, 'video'),
      audioInput(dir, audio, 'audio'),
    ]);
    const width = probe.width - (probe.width % 2);
    const height = probe.height - (probe.height % 2);
    const frameCount = frameCountFor(probe.duration, probe.fps);
    if (opts.lipSync === false && probe.videoCodec === 'h264' && width === probe.width && height === probe.height) {
      // Only the sound changes: the H.264 stream is copied as it is.
      const output = `${dir}/output.mp4`;
      const seconds = probe.duration.toFixed(6);
      await runFfmpeg(
        [
          '-i',
          path,
          '-i',
          audioPath,
          '-map',
          '0:v:0',
          '-map',
          '1:a:0',
          '-c:v',
          'copy',
          '-af',
          'apad',
          ...AAC_OUTPUT_ARGS,
        ].concat(['-t', seconds, '-movflags', '+faststart', '-fflags', '+bitexact', '-y', output]),
        { what: 'audio replacement', timeoutMs: 60_000 + probe.duration * 1000 },
      );
      return {
        data: await readOutput(output, 'audio replacement'),
        ...MP4,
        width,
        height,
        durationSeconds: probe.duration,
      };
    }
    const envelope =
      opts.lipSync === false ? new Float32Array(frameCount) : await loudnessEnvelope(audio, probe.fps, frameCount);
    async function* frames(): AsyncGenerator<Buffer> {
      let i = 0;
      for await (const data of decodeFrames(path, width, height, probe.fps, 'video decoding')) {
        if (i >= frameCount) break;
        const open = envelope[i] ?? 0;
        drawMouth(frameOf(data, width, height), MOUTH.x, MOUTH.y, MOUTH.rx, 0.004 + 0.028 * open, open);
        i++;
        yield data;
      }
    }
    return encodeFrames(dir, frames(), {
      frameWidth: width,
      frameHeight: height,
      width,
      height,
      fps: probe.fps,
      frameCount,
      audioPath,
      colourArgs: colourArgsOf(probe),
      what: 'lip sync encoding',
    });
  });
}

/** Options of a talking-head video. */
export interface TalkingHeadOptions {
  width: number;
  height: number;
  fps: number;
  /** The video is as long as the audio, but no longer than this. */
  maxDurationSeconds: number;
}

/**
 * Animates a portrait for the length of the audio (capped at maxDurationSeconds): a slow zoom,
 * a brightness and scale pulse and an opening mouth driven by the audio's loudness; audio muxed.
 */
export async function talkingHeadVideo(image: Buffer, audio: Buffer, opts: TalkingHeadOptions): Promise<RenderedFile> {
  checkSize(opts.width, opts.height);
  checkFps(opts.fps);
  checkDuration(opts.maxDurationSeconds, 'maxDurationSeconds');
  const work = workingSize(opts.width, opts.height, IMAGE_WORK_PIXELS);
  return withTempDir(async (dir) => {
    const [{ path: audioPath, probe }, rgb] = await Promise.all([
      audioInput(dir, audio, 'audio'),
      coverRgb(image, work.width, work.height, 'image'),
    ]);
    const audioSeconds = probe.durationSeconds > 0 ? probe.durationSeconds : opts.maxDurationSeconds;
    const frameCount = frameCountFor(Math.min(audioSeconds, opts.maxDurationSeconds), opts.fps);
    const picture = rgbToYuv(rgb, work.width, work.height);
    const envelope = await loudnessEnvelope(audio, opts.fps, frameCount);
    const rng = Rng.from(RENDER_VERSION, 'talking head', sha256(image).toString('hex'), opts.width, opts.height);
    const sway = rng.range(0.1, 0.2);
    const phase = rng.range(0, 2 * Math.PI);
    async function* frames(): AsyncGenerator<Buffer> {
      for (let i = 0; i < frameCount; i++) {
        const frame = newFrame(work.width, work.height);
        const loud = envelope[i] ?? 0;
        const t = i / opts.fps;
        const p = frameCount > 1 ? i / (frameCount - 1) : 0;
        // Zoom toward the face (upper middle), breathe sideways, pulse with the voice.
        const view = bounded({
          zoom: 1 + 0.06 * smoothstep(p) + 0.012 * loud,
          cx: 0.5 + 0.008 * Math.sin(2 * Math.PI * sway * t + phase),
          cy: 0.47,
        });
        drawLayer(frame, picture, view, 1, 1 + 0.05 * loud);
        // The mouth moves with the picture.
        const mx = (MOUTH.x - view.cx) * view.zoom + 0.5;
        const my = (MOUTH.y - view.cy) * view.zoom + 0.5;
        drawMouth(frame, mx, my, MOUTH.rx * view.zoom, (0.004 + 0.028 * loud) * view.zoom, loud);
        yield frame.data;
      }
    }
    return encodeFrames(dir, frames(), {
      frameWidth: work.width,
      frameHeight: work.height,
      width: opts.width,
      height: opts.height,
      fps: opts.fps,
      frameCount,
      audioPath,
      what: 'talking head encoding',
    });
  });
}

/** Options of a motion transfer. */
export interface MotionOptions {
  width: number;
  height: number;
}

/**
 * Motion control: the character image moved by the reference video's motion. Output has the
 * reference's frame rate and duration; the camera follows the centroid and amount of the
 * reference's movement, and its moving outlines glow faintly over the character.
 */
export async function transferMotion(reference: Buffer, image: Buffer, opts: MotionOptions): Promise<RenderedFile> {
  checkSize(opts.width, opts.height);
  const work = workingSize(opts.width, opts.height, IMAGE_WORK_PIXELS);
  return withTempDir(async (dir) => {
    const [{ path, probe }, rgb] = await Promise.all([
      videoInput(dir, reference, 'reference video'),
      coverRgb(image, work.width, work.height, 'image'),
    ]);
    const picture = rgbToYuv(rgb, work.width, work.height);
    // Analyse the reference at a small size: per frame, how much moved and where.
    const aw = 64;
    const ah = Math.max(2, Math.round((aw * probe.height) / probe.width / 2) * 2);
    const maps: Uint8Array[] = [];
    const centroids: Array<{ x: number; y: number; energy: number }> = [];
    let previous: Buffer | undefined;
    for await (const gray of decodeFrames(path, aw, ah, probe.fps, 'reference decoding', 'gray')) {
      const diff = new Uint8Array(aw * ah);
      let sum = 0;
      let sx = 0;
      let sy = 0;
      for (let p = 0; p < aw * ah; p++) {
        const d = previous ? Math.abs((gray[p] as number) - (previous[p] as number)) : 0;
        diff[p] = Math.min(255, d * 3);
        sum += d;
        sx += d * ((p % aw) + 0.5);
        sy += d * (Math.floor(p / aw) + 0.5);
      }
      maps.push(diff);
      centroids.push(
        sum > 0 ? { x: sx / sum / aw, y: sy / sum / ah, energy: sum / (aw * ah) } : { x: 0.5, y: 0.5, energy: 0 },
      );
      previous = gray;
      if (maps.length > MAX_DURATION_SECONDS * MAX_FPS) {
        throw new WorkError('reference video is too long', false);
      }
    }
    const frameCount = maps.length;
    if (frameCount === 0) throw new WorkError('reference video has no frames', false);
    const peak = Math.max(1e-6, ...centroids.map((c) => c.energy));
    const motionPlane = new Uint8ClampedArray(work.width * work.height);

    async function* frames(): AsyncGenerator<Buffer> {
      let cx = 0.5;
      let cy = 0.5;
      let energy = 0;
      for (let i = 0; i < frameCount; i++) {
        const c = centroids[i] ?? { x: 0.5, y: 0.5, energy: 0 };
        const e = c.energy / peak;
        // Smoothly follow where the reference moves, more when it moves more.
        cx += (0.5 + (c.x - 0.5) * 0.5 * e - cx) * 0.3;
        cy += (0.5 + (c.y - 0.5) * 0.5 * e - cy) * 0.3;
        energy += (e - energy) * 0.3;
        const frame = newFrame(work.width, work.height);
        drawLayer(frame, picture, { zoom: 1.1 + 0.08 * energy, cx, cy }, 1);
        // The reference's moving outlines, brightened onto the character.
        const map = maps[i];
        if (map) drawPlane(motionPlane, work.width, work.height, map, aw, ah, IDENTITY, 1, 1, 0);
        for (let p = 0; p < motionPlane.length; p++) {
          const m = motionPlane[p] as number;
          if (m > 8) frame.y[p] = (frame.y[p] as number) + m * 0.35;
        }
        yield frame.data;
      }
    }
    return encodeFrames(dir, frames(), {
      frameWidth: work.width,
      frameHeight: work.height,
      width: opts.width,
      height: opts.height,
      fps: probe.fps,
      frameCount,
      what: 'motion transfer encoding',
    });
  });
}

/** Joins same-size H.264 parts (multi-shot videos) into one MP4; parts keep their sound, or get silence. */
export async function concatVideos(parts: Buffer[]): Promise<RenderedFile> {
  if (parts.length === 0) throw new WorkError('no video parts to join', false);
  return withTempDir(async (dir) => {
    const inputs = await Promise.all(parts.map((part, i) => videoInput(dir, part, `video part ${i + 1}`, `part-${i}`)));
    const first = inputs[0]?.probe;
    if (!first) throw new WorkError('no video parts to join', false);
    const width = first.width - (first.width % 2);
    const height = first.height - (first.height % 2);
    const fps = first.fps;
    const withAudio = inputs.some((input) => input.probe.hasAudio);
    const filters: string[] = [];
    const labels: string[] = [];
    let total = 0;
    inputs.forEach(({ probe }, i) => {
      filters.push(
        `[${i}:v:0]scale=${width}:${height}:force_original_aspect_ratio=decrease,` +
          `pad=${width}:${height}:(ow-iw)/2:(oh-ih)/2,setsar=1,fps=${rateString(fps)},format=yuv420p[v${i}]`,
      );
      labels.push(`[v${i}]`);
      if (withAudio) {
        const seconds = probe.duration.toFixed(6);
        filters.push(
          probe.hasAudio
            ? `[${i}:a:0]aresample=48000,aformat=sample_fmts=fltp:channel_layouts=stereo,apad,atrim=0:${seconds}[a${i}]`
            : `anullsrc=r=48000:cl=stereo,atrim=0:${seconds}[a${i}]`,
        );
        labels.push(`[a${i}]`);
      }
      total += probe.duration;
    });
    filters.push(`${labels.join('')}concat=n=${inputs.length}:v=1:a=${withAudio ? 1 : 0}[v]${withAudio ? '[a]' : ''}`);
    const output = `${dir}/output.mp4`;
    await runFfmpeg(
      [
        ...inputs.flatMap((input) => ['-i', input.path]),
        '-filter_complex',
        filters.join(';'),
        '-map',
        '[v]',
        ...(withAudio ? ['-map', '[a]', ...AAC_OUTPUT_ARGS] : []),
        ...H264_OUTPUT_ARGS,
        ...colourArgsOf(first),
        '-y',
        output,
      ],
      { what: 'video joining', timeoutMs: encodeTimeout(Math.ceil(total * fps), width, height) * 2 },
    );
    return { data: await readOutput(output, 'video joining'), ...MP4, width, height, durationSeconds: total };
  });
}

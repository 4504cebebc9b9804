// Decodes an upload for real before it is stored: images with sharp (every frame, within a pixel
// budget), audio and video with ffprobe and ffmpeg (the first video frame, the first seconds of
// audio). A file the decoders refuse, or that breaks a limit, is a 422 media_rejected.

import sharp, { type Metadata } from 'sharp';
import { WorkError } from '../../lib/errors.ts';
import { type ProbeResult, probeFile, runFfmpeg, tempInput, withTempDir } from '../../lib/ffmpeg.ts';
import { type DeclaredMedia, FORMATS, MEDIA_LIMITS, type MediaFormat, mediaRejected } from './media-formats.ts';

export interface DecodedMedia {
  width?: number;
  height?: number;
  durationSeconds?: number;
}

/** What a decoder said, on one line and short: enough for the client, nothing of our internals. */
function decoderReason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const line = message
    .replace(/\s+/g, ' ')
    .replace(/\/[^\s:]*\/input\.[a-z0-9]+/g, 'input')
    .trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

const SHARP_FORMAT: Partial<Record<MediaFormat, string>> = { png: 'png', jpeg: 'jpeg', webp: 'webp', gif: 'gif' };

/** Decodes every frame of an image (its bytes, or its file); width and height as displayed (EXIF rotation applied). */
export async function decodeImage(bytes: Buffer | string, format: MediaFormat): Promise<DecodedMedia> {
  const limits = MEDIA_LIMITS.image;
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false, failOn: 'warning' }).metadata();
  } catch (err) {
    throw mediaRejected(`the image could not be decoded (${decoderReason(err)})`);
  }
  if (meta.format !== SHARP_FORMAT[format]) {
    throw mediaRejected(`the image decodes as ${meta.format ?? 'an unknown format'}, not ${FORMATS[format].label}`);
  }
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  const frames = meta.pages ?? 1;
  if (width < 1 || height < 1) throw mediaRejected('the image has no pixels');
  if (width > limits.maxSide || height > limits.maxSide) {
    throw mediaRejected(`the image is ${width}x${height}; the limit is ${limits.maxSide}x${limits.maxSide}`);
  }
  if (width * height * frames > limits.maxPixels) {
    throw mediaRejected(
      `the image has ${frames} frames of ${width}x${height}: more than ${limits.maxPixels} pixels in all (the limit)`,
    );
  }
  try {
    // A full decode of every frame (stats reads each pixel), not only the header.
    await sharp(bytes, { pages: -1, limitInputPixels: limits.maxPixels, failOn: 'warning' }).stats();
  } catch (err) {
    throw mediaRejected(`the image could not be decoded (${decoderReason(err)})`);
  }
  const rotated = (meta.orientation ?? 1) >= 5;
  return rotated ? { width: height, height: width } : { width, height };
}

/** ffmpeg's demuxer for each audio/video format, forced so that nothing else probes the bytes. */
const DEMUXER: Partial<Record<MediaFormat, { name: string; formatName: RegExp }>> = {
  mp4: { name: 'mov', formatName: /\bmp4\b|\bmov\b/ },
  mov: { name: 'mov', formatName: /\bmp4\b|\bmov\b/ },
  m4a: { name: 'mov', formatName: /\bm4a\b|\bmp4\b/ },
  webm: { name: 'matroska', formatName: /\bwebm\b/ },
  mp3: { name: 'mp3', formatName: /\bmp3\b/ },
  wav: { name: 'wav', formatName: /\bwav\b/ },
  ogg: { name: 'ogg', formatName: /\bogg\b/ },
  flac: { name: 'flac', formatName: /\bflac\b/ },
};

const DECODE_TIMEOUT_MS = 60_000;

/**
 * Probes and decodes audio or video (its bytes, or its file); checks the streams the declared kind
 * needs and the duration limit.
 */
export async function decodeAudioVideo(input: Buffer | string, declared: DeclaredMedia): Promise<DecodedMedia> {
  if (typeof input === 'string') return decodeAudioVideoFile(input, declared);
  return withTempDir(async (dir) =>
    decodeAudioVideoFile(await tempInput(dir, `input.${FORMATS[declared.format].extensions[0]}`, input), declared),
  );
}

async function decodeAudioVideoFile(path: string, declared: DeclaredMedia): Promise<DecodedMedia> {
  const demuxer = DEMUXER[declared.format];
  if (!demuxer) throw new Error(`no demuxer for ${declared.format}`);
  let probe: ProbeResult;
  try {
    probe = await probeFile(path);
  } catch (err) {
    if (!(err instanceof WorkError)) throw err;
    throw mediaRejected(`the ${declared.kind} could not be decoded (${decoderReason(err)})`);
  }
  if (!demuxer.formatName.test(probe.format)) {
    throw mediaRejected(`the ${declared.kind} decodes as '${probe.format}', not ${FORMATS[declared.format].label}`);
  }
  const decoded: DecodedMedia = {};
  if (declared.kind === 'video') {
    const limits = MEDIA_LIMITS.video;
    if (!probe.hasVideo) throw mediaRejected('the video has no video stream');
    const width = probe.width ?? 0;
    const height = probe.height ?? 0;
    if (width < 1 || height < 1) throw mediaRejected('the video has no frame size');
    if (width > limits.maxSide || height > limits.maxSide) {
      throw mediaRejected(`the video is ${width}x${height}; the limit is ${limits.maxSide}x${limits.maxSide}`);
    }
    checkDuration(probe.durationSeconds, limits.maxSeconds, 'video');
    await decodeSome(
      path,
      demuxer.name,
      ['-map', '0:v:0', '-frames:v', '1', '-vf', 'scale=16:16', '-pix_fmt', 'gray', '-f', 'rawvideo'],
      'video frame',
    );
    Object.assign(decoded, { width, height });
  } else {
    if (probe.hasVideo) throw mediaRejected('the audio file holds a video stream: upload it as a video');
    if (!probe.hasAudio) throw mediaRejected('the audio file has no audio stream');
    checkDuration(probe.durationSeconds, MEDIA_LIMITS.audio.maxSeconds, 'audio');
    await decodeSome(
      path,
      demuxer.name,
      ['-map', '0:a:0', '-t', '3', '-ac', '1', '-ar', '8000', '-f', 's16le'],
      'audio',
    );
  }
  decoded.durationSeconds = Math.round(probe.durationSeconds * 1000) / 1000;
  return decoded;
}

function checkDuration(seconds: number, max: number, kind: string): void {
  if (!(seconds > 0)) throw mediaRejected(`the ${kind} has no measurable duration`);
  if (seconds > max) {
    throw mediaRejected(`the ${kind} lasts ${Math.round(seconds)} s; the limit is ${max} s (${max / 60} min)`);
  }
}

/** Runs ffmpeg on the file (local file protocol only, forced demuxer) and requires decoded output. */
async function decodeSome(path: string, demuxer: string, output: string[], what: string): Promise<void> {
  let out: Buffer;
  try {
    out = await runFfmpeg(['-protocol_whitelist', 'file', '-f', demuxer, '-i', path, ...output, 'pipe:1'], {
      what: `${what} decoding`,
      timeoutMs: DECODE_TIMEOUT_MS,
    });
  } catch (err) {
    if (!(err instanceof WorkError)) throw err;
    throw mediaRejected(`the ${what} could not be decoded (${decoderReason(err)})`);
  }
  if (out.length === 0) throw mediaRejected(`the ${what} could not be decoded (no ${what} came out)`);
}

// Spawn helpers around the ffmpeg and ffprobe binaries installed through npm, shared by the
// simulator's video and audio renderers and the media checks of the API. Every run has a timeout; failures become
// WorkErrors carrying the tail of ffmpeg's stderr. Inputs that need seeking (MP4 with the
// index at the end) and outputs that are rewritten at the end (MP4 +faststart, MP3 Xing
// header, FLAC STREAMINFO) go through a private temporary folder under os.tmpdir() that is
// always removed; raw frames and PCM are streamed through stdin/stdout.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { endianness, tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkError } from './errors.ts';

// ---------------------------------------------------------------------------------------
// Processes.

/** What the simulator learns about a media file from ffprobe. */
export interface ProbeResult {
  /** ffprobe's format name, e.g. 'mov,mp4,m4a,3gp,3g2,mj2', 'mp3', 'wav', 'ogg', 'flac', 'aac', 'png_pipe'. */
  format: string;
  /** Container duration (the longest stream); 0 for still images. */
  durationSeconds: number;
  /** A real video stream (cover art attached to audio files does not count). */
  hasVideo: boolean;
  hasAudio: boolean;
  width?: number;
  height?: number;
  /** Average frame rate of the video stream. */
  fps?: number;
  /** Frames in the video stream when the container records it (MP4 does). */
  frameCount?: number;
  /** Duration of the video stream alone, when known. */
  videoDurationSeconds?: number;
  /** e.g. 'h264'. */
  videoCodec?: string;
  /** e.g. 'yuv420p'. */
  pixelFormat?: string;
  /** Colour tags of the video stream when set, e.g. 'bt709' (ffprobe's color_space, color_primaries, color_transfer). */
  colorSpace?: string;
  colorPrimaries?: string;
  colorTransfer?: string;
  /** e.g. 'aac', 'mp3', 'pcm_s16le', 'vorbis', 'flac'. */
  audioCodec?: string;
  sampleRate?: number;
  channels?: number;
}

/** Options of one ffmpeg/ffprobe run. */
export interface RunOptions {
  /** Bytes for stdin, or frames/chunks written one after another with backpressure. */
  stdin?: Buffer | Iterable<Buffer> | AsyncIterable<Buffer>;
  /** Kill the process and fail (retryably) after this long; default 120 s. */
  timeoutMs?: number;
  /** What the run does, for error messages ('video encoding'). */
  what?: string;
  /** Whether a non-zero exit is worth retrying; default false (the inputs are at fault). */
  retryable?: boolean;
  signal?: AbortSignal;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const STDERR_KEEP = 8192;
const STDERR_TAIL = 600;

let ffmpegBinary: Promise<string> | undefined;
let ffprobeBinary: Promise<string> | undefined;

/** Path of the npm-installed ffmpeg binary. */
export function ffmpegPath(): Promise<string> {
  ffmpegBinary ??= import('@ffmpeg-installer/ffmpeg').then((m) => m.default.path);
  return ffmpegBinary;
}

/** Path of the npm-installed ffprobe binary. */
export function ffprobePath(): Promise<string> {
  ffprobeBinary ??= import('@ffprobe-installer/ffprobe').then((m) => m.default.path);
  return ffprobeBinary;
}

/** Last few hundred characters of stderr on one line: the part that says what went wrong. */
function stderrTail(stderr: string): string {
  const text = stderr.replace(/\s+/g, ' ').trim();
  return text.length > STDERR_TAIL ? `…${text.slice(-STDERR_TAIL)}` : text;
}

/** A running ffmpeg/ffprobe process: its stdout as a stream and a promise of its successful exit. */
export interface MediaProcess {
  stdout: AsyncIterable<Buffer>;
  /** Resolves when the process exited with 0 and stdin was fully written; rejects with a WorkError. */
  done: Promise<void>;
  /** Stops the process (used when the consumer gives up early). */
  kill(): void;
}

function startProcess(binary: string, args: string[], opts: RunOptions): MediaProcess {
  const what = opts.what ?? 'media processing';
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn(binary, args, { stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new WorkError(`${what} could not start: ${message}`, true);
  }
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEEP);
  });
  let failure: WorkError | undefined;
  const fail = (error: WorkError) => {
    failure ??= error;
    child.kill('SIGKILL');
  };
  const timer = setTimeout(
    () => fail(new WorkError(`${what} timed out after ${Number((timeoutMs / 1000).toFixed(1))} s`, true)),
    timeoutMs,
  );
  const onAbort = () => fail(new WorkError(`${what} was cancelled`, false));
  if (opts.signal?.aborted) onAbort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });

  const exited = new Promise<void>((resolve, reject) => {
    child.on('error', (err: NodeJS.ErrnoException) => {
      // A process that could not start may never emit 'close'.
      fail(new WorkError(`${what} could not run: ${err.message}`, err.code !== 'ENOENT'));
      clearTimeout(timer);
      reject(failure);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (failure) reject(failure);
      else if (code === 0) resolve();
      else {
        const reason = stderrTail(stderr) || (signal ? `killed by ${signal}` : `exit code ${code}`);
        // A process killed from outside (out of memory) is worth another try; a clean error exit is not.
        reject(new WorkError(`${what} failed: ${reason}`, signal !== null || (opts.retryable ?? false)));
      }
    });
  });

  // stdin: written with backpressure; a process that exits early (EPIPE) is reported through its exit.
  child.stdin.on('error', () => undefined);
  const fed = (async () => {
    const input = opts.stdin;
    if (input === undefined) return;
    const chunks: Iterable<Buffer> | AsyncIterable<Buffer> = Buffer.isBuffer(input) ? [input] : input;
    for await (const chunk of chunks) {
      if (failure || child.stdin.destroyed || child.exitCode !== null) break;
      if (!child.stdin.write(chunk)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            child.stdin.off('drain', done);
            child.stdin.off('close', done);
            resolve();
          };
          child.stdin.on('drain', done);
          child.stdin.on('close', done);
        });
      }
    }
  })().finally(() => child.stdin.end());
  // A failing input generator kills the process and its error is the one reported.
  const fedOrFailed = fed.catch((err: unknown) => {
    fail(
      err instanceof WorkError
        ? err
        : new WorkError(`${what} input failed: ${err instanceof Error ? err.message : String(err)}`, false),
    );
  });

  const done = Promise.all([exited, fedOrFailed]).then(() => undefined);
  done.catch(() => undefined); // observed by the caller; never an unhandled rejection here
  return {
    stdout: child.stdout,
    done,
    kill: () => fail(new WorkError(`${what} was stopped`, false)),
  };
}

/** Starts ffmpeg (quiet, errors only) and returns its streaming stdout; for decoders read frame by frame. */
export async function spawnFfmpeg(args: string[], opts: RunOptions = {}): Promise<MediaProcess> {
  return startProcess(await ffmpegPath(), ffmpegArgs(args, opts), opts);
}

function ffmpegArgs(args: string[], opts: RunOptions): string[] {
  return ['-hide_banner', '-loglevel', 'error', ...(opts.stdin === undefined ? ['-nostdin'] : []), ...args];
}

async function collect(proc: MediaProcess): Promise<Buffer> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of proc.stdout) chunks.push(chunk);
  } finally {
    await proc.done;
  }
  return Buffer.concat(chunks);
}

/** Runs ffmpeg with `args` (plus quiet logging and no interactive stdin), returns its stdout. */
export async function runFfmpeg(args: string[], opts: RunOptions = {}): Promise<Buffer> {
  return collect(startProcess(await ffmpegPath(), ffmpegArgs(args, opts), opts));
}

/** Runs ffprobe with `args`, returns its stdout. */
export async function runFfprobe(args: string[], opts: RunOptions = {}): Promise<Buffer> {
  return collect(startProcess(await ffprobePath(), ['-hide_banner', '-v', 'error', ...args], opts));
}

/** Runs `fn` with a fresh private folder under os.tmpdir(), removed afterwards whatever happens. */
export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'genmedia-sim-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Writes `data` to `dir/name` and returns the path. */
export async function tempInput(dir: string, name: string, data: Buffer): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, data);
  return path;
}

/** Reads an output file ffmpeg wrote, failing clearly when it wrote nothing. */
export async function readOutput(path: string, what: string): Promise<Buffer> {
  const data = await readFile(path).catch(() => Buffer.alloc(0));
  if (data.length === 0) throw new WorkError(`${what} produced no output`, false);
  return data;
}

/** Reads raw frames of exactly `frameSize` bytes from a stream (the last partial frame is dropped). */
export async function* readFrames(stream: AsyncIterable<Buffer>, frameSize: number): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of stream) {
    let data = chunk;
    while (pendingBytes + data.length >= frameSize) {
      const take = frameSize - pendingBytes;
      pending.push(data.subarray(0, take));
      yield Buffer.concat(pending, frameSize);
      data = data.subarray(take);
      pending = [];
      pendingBytes = 0;
    }
    if (data.length > 0) {
      // Copy: the stream may reuse its chunk.
      pending.push(Buffer.from(data));
      pendingBytes += data.length;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Probing.

interface FfprobeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  pix_fmt?: string;
  color_space?: string;
  color_primaries?: string;
  color_transfer?: string;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  nb_frames?: string;
  duration?: string;
  sample_rate?: string;
  channels?: number;
  disposition?: { attached_pic?: number };
  tags?: { rotate?: string };
  side_data_list?: Array<{ rotation?: number }>;
}

interface FfprobeOutput {
  streams?: FfprobeStream[];
  format?: { format_name?: string; duration?: string };
}

function parseRate(rate: string | undefined): number | undefined {
  const m = /^(\d+)(?:\/(\d+))?$/.exec(rate ?? '');
  if (!m) return undefined;
  const value = Number(m[1]) / Number(m[2] ?? 1);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

function positive(text: string | number | undefined): number | undefined {
  const value = Number(text);
  return text !== undefined && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** Probes a media file on disk; WorkError (not retryable) when ffprobe cannot read it. */
export async function probeFile(path: string): Promise<ProbeResult> {
  let json: FfprobeOutput;
  try {
    const out = await runFfprobe(['-show_format', '-show_streams', '-of', 'json', path], {
      what: 'media probing',
      timeoutMs: 30_000,
    });
    json = JSON.parse(out.toString('utf8')) as FfprobeOutput;
  } catch (err) {
    if (err instanceof WorkError && err.retryable) throw err;
    const detail = err instanceof WorkError ? err.message.replace(/^media probing failed: /, '') : 'unreadable';
    throw new WorkError(`media could not be decoded: ${detail.replaceAll(path, 'input')}`, false);
  }
  const streams = json.streams ?? [];
  const video = streams.find((s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1);
  const audio = streams.find((s) => s.codec_type === 'audio');
  if (!video && !audio) throw new WorkError('media could not be decoded: no audio or video stream', false);
  const streamDurations = streams.map((s) => positive(s.duration) ?? 0);
  const result: ProbeResult = {
    format: json.format?.format_name ?? 'unknown',
    durationSeconds: positive(json.format?.duration) ?? Math.max(0, ...streamDurations),
    hasVideo: video !== undefined,
    hasAudio: audio !== undefined,
  };
  if (video) {
    result.videoCodec = video.codec_name;
    result.pixelFormat = video.pix_fmt;
    const tag = (value: string | undefined) =>
      value && value !== 'unknown' && value !== 'reserved' ? value : undefined;
    result.colorSpace = tag(video.color_space);
    result.colorPrimaries = tag(video.color_primaries);
    result.colorTransfer = tag(video.color_transfer);
    // Width and height as displayed: ffmpeg's decoder applies a 90° rotation (phone videos).
    const rotation = Number(
      video.side_data_list?.find((d) => d.rotation !== undefined)?.rotation ?? video.tags?.rotate ?? 0,
    );
    const quarterTurn = Math.abs(Math.round(rotation / 90)) % 2 === 1;
    result.width = quarterTurn ? video.height : video.width;
    result.height = quarterTurn ? video.width : video.height;
    result.fps = parseRate(video.avg_frame_rate) ?? parseRate(video.r_frame_rate);
    result.frameCount = positive(video.nb_frames);
    result.videoDurationSeconds = positive(video.duration);
  }
  if (audio) {
    result.audioCodec = audio.codec_name;
    result.sampleRate = positive(audio.sample_rate);
    result.channels = positive(audio.channels);
  }
  // Drop keys ffprobe left undefined so results compare and serialize cleanly.
  for (const key of Object.keys(result) as Array<keyof ProbeResult>) {
    if (result[key] === undefined) delete result[key];
  }
  return result;
}

/** Probes media bytes with ffprobe; WorkError (not retryable) when they cannot be decoded. */
export async function probeMedia(data: Buffer): Promise<ProbeResult> {
  if (data.length === 0) throw new WorkError('media could not be decoded: empty input', false);
  return withTempDir(async (dir) => probeFile(await tempInput(dir, 'input', data)));
}

// ---------------------------------------------------------------------------------------
// Shared encoder settings.

/** Output options for H.264 MP4: yuv420p, index at the front, reproducible bytes. */
export const H264_OUTPUT_ARGS: readonly string[] = [
  '-c:v',
  'libx264',
  '-preset',
  'veryfast',
  '-crf',
  '20',
  // A fixed thread count: x264's output depends on it, and the bytes must not depend on the machine.
  '-threads',
  '4',
  '-pix_fmt',
  'yuv420p',
  '-movflags',
  '+faststart',
  '-fflags',
  '+bitexact',
  '-flags:v',
  '+bitexact',
];

/** Output options for AAC audio inside MP4 (48 kHz stereo). */
export const AAC_OUTPUT_ARGS: readonly string[] = [
  '-c:a',
  'aac',
  '-b:a',
  '160k',
  '-ar',
  '48000',
  '-ac',
  '2',
  '-flags:a',
  '+bitexact',
];

/** Frame rate as ffmpeg parses it exactly: '24', '30000/1001', '12.5' → '25/2'. */
export function rateString(fps: number): string {
  if (Number.isInteger(fps)) return String(fps);
  const ntsc = Math.round(fps * 1.001);
  if (Math.abs((ntsc * 1000) / 1001 - fps) < 1e-3) return `${ntsc * 1000}/1001`;
  return `${Math.round(fps * 1000)}/1000`;
}

/** Sample format of Float32Array bytes on this machine, for ffmpeg's raw PCM input. */
export const F32_FORMAT = endianness() === 'LE' ? 'f32le' : 'f32be';

/**
 * Decodes one frame of a video to PNG: `at` seconds from the start (default 0, the first
 * frame) or 'last' for the final frame. For previews and tests.
 */
export async function extractFrame(video: Buffer, at: number | 'last' = 0): Promise<Buffer> {
  return withTempDir(async (dir) => {
    const input = await tempInput(dir, 'input', video);
    const output = join(dir, 'frame.png');
    const seek = at === 'last' ? ['-sseof', '-1'] : at > 0 ? ['-ss', String(at)] : [];
    // For 'last', every frame of the final second overwrites the same file (-update 1).
    const frames = at === 'last' ? ['-update', '1'] : ['-frames:v', '1'];
    await runFfmpeg([...seek, '-i', input, '-an', ...frames, '-f', 'image2', '-c:v', 'png', '-y', output], {
      what: 'frame extraction',
      timeoutMs: 60_000,
    });
    return readOutput(output, 'frame extraction');
  });
}

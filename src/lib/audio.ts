// The audio formats the service writes, and the conversion of a vendor's audio into what a request
// asked for: another format, louder or softer, faster or slower (what the vendor could not do).

import { probeAudioBytes } from './audio-probe.ts';
import { WorkError } from './errors.ts';
import { probeMedia, readOutput, runFfmpeg, tempInput, withTempDir } from './ffmpeg.ts';

/** Formats the service writes; 'pcm' is raw signed 16-bit little-endian mono, without a header. */
export type AudioFormat = 'mp3' | 'wav' | 'ogg' | 'flac' | 'aac' | 'pcm';

/** How ffmpeg writes each format with a header, and the sample rates its codec takes (any when absent). */
export const AUDIO_ENCODINGS: Readonly<
  Record<Exclude<AudioFormat, 'pcm'>, { contentType: string; args: readonly string[]; rates?: readonly number[] }>
> = {
  mp3: {
    contentType: 'audio/mpeg',
    args: ['-c:a', 'libmp3lame', '-b:a', '192k', '-compression_level', '7', '-joint_stereo', '0', '-f', 'mp3'],
    rates: [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000],
  },
  wav: { contentType: 'audio/wav', args: ['-c:a', 'pcm_s16le', '-f', 'wav'] },
  ogg: { contentType: 'audio/ogg', args: ['-c:a', 'libvorbis', '-q:a', '5', '-f', 'ogg'] },
  flac: { contentType: 'audio/flac', args: ['-c:a', 'flac', '-f', 'flac'] },
  aac: {
    contentType: 'audio/aac',
    args: ['-c:a', 'aac', '-b:a', '160k', '-f', 'adts'],
    rates: [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000],
  },
};

const PCM_TYPE = 'audio/pcm';

/** What a conversion is asked to make. */
export interface AudioTarget {
  format: AudioFormat;
  /** The rate of raw PCM, read and written (the file's own rate for the others). */
  pcmRate: number;
  /** Loudness factor; 1 leaves it. */
  gain: number;
  /** Tempo factor, 0.5-2 (pitch kept); 1 leaves it. */
  tempo: number;
}

/** Audio as it came out of a conversion, with its length. */
export interface ConvertedAudio {
  data: Buffer;
  contentType: string;
  durationSeconds: number;
}

function essence(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/** The format a content type is, among ours; undefined for any other. */
export function audioFormatOf(contentType: string): AudioFormat | undefined {
  const type = essence(contentType);
  if (type === PCM_TYPE) return 'pcm';
  if (type === 'audio/mp3') return 'mp3';
  if (type === 'audio/x-wav' || type === 'audio/wave') return 'wav';
  if (type === 'audio/x-flac') return 'flac';
  for (const [format, encoding] of Object.entries(AUDIO_ENCODINGS)) {
    if (encoding.contentType === type) return format as AudioFormat;
  }
  return undefined;
}

/**
 * Audio in the target format, gain and tempo. Audio already in the format, at gain and tempo 1,
 * is kept as it is (only measured). Raw PCM in is read at `pcmRate`.
 */
export async function convertAudio(
  input: { data: Buffer; contentType: string },
  target: AudioTarget,
): Promise<ConvertedAudio> {
  if (input.data.length === 0) throw new WorkError('There is no audio to convert', false);
  if (!(target.tempo >= 0.5 && target.tempo <= 2)) {
    throw new WorkError(`A tempo of ${target.tempo} is out of range`, false);
  }
  const from = audioFormatOf(input.contentType);
  const pcmSeconds = (bytes: number) => bytes / 2 / target.pcmRate;
  if (from === target.format && target.gain === 1 && target.tempo === 1) {
    if (from === 'pcm' || target.format === 'pcm') {
      return { data: input.data, contentType: PCM_TYPE, durationSeconds: pcmSeconds(input.data.length) };
    }
    // MP3 and WAV are read in process; what that cannot read for certain goes to ffprobe.
    const probe = probeAudioBytes(input.data, target.format) ?? (await probeMedia(input.data));
    if (!probe.hasAudio) throw new WorkError('The audio has no sound in it', false);
    return {
      data: input.data,
      contentType: AUDIO_ENCODINGS[target.format].contentType,
      durationSeconds: probe.durationSeconds,
    };
  }
  const filters = [
    ...(target.gain === 1 ? [] : [`volume=${target.gain}`]),
    ...(target.tempo === 1 ? [] : [`atempo=${target.tempo}`]),
  ];
  return withTempDir(async (dir) => {
    const path = await tempInput(dir, 'input', input.data);
    const source =
      from === 'pcm' ? ['-f', 's16le', '-ar', String(target.pcmRate), '-ac', '1', '-i', path] : ['-i', path];
    const common = [...source, '-vn', ...(filters.length > 0 ? ['-af', filters.join(',')] : [])];
    if (target.format === 'pcm') {
      const data = await runFfmpeg(
        [...common, '-ac', '1', '-ar', String(target.pcmRate), '-c:a', 'pcm_s16le', '-f', 's16le', 'pipe:1'],
        { what: 'audio conversion' },
      );
      if (data.length === 0) throw new WorkError('audio conversion produced no output', false);
      return { data, contentType: PCM_TYPE, durationSeconds: pcmSeconds(data.length) };
    }
    const encoding = AUDIO_ENCODINGS[target.format];
    const output = `${dir}/output.${target.format}`;
    // A codec with a fixed set of rates gets 44.1 kHz when the source's is not among them.
    const sourceRate = from === 'pcm' ? target.pcmRate : (await probeMedia(input.data)).sampleRate;
    const resample = encoding.rates && !(sourceRate && encoding.rates.includes(sourceRate)) ? ['-ar', '44100'] : [];
    await runFfmpeg([...common, ...resample, ...encoding.args, '-y', output], { what: 'audio conversion' });
    const data = await readOutput(output, 'audio conversion');
    const converted = await probeMedia(data);
    return { data, contentType: encoding.contentType, durationSeconds: converted.durationSeconds };
  });
}

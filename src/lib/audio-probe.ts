// The length of MP3 and WAV audio read from its bytes, without a process: what a vendor's file in
// the format asked for needs to be measured. Only answers when it is sure; anything unusual is
// left to ffprobe (probeMedia).

/** What the bytes of an audio file say about it. */
export interface AudioBytesProbe {
  durationSeconds: number;
  sampleRate: number;
  /** At least one audio frame (MP3) or sample frame (WAV). */
  hasAudio: boolean;
}

/**
 * The duration and sample rate of MP3 or WAV bytes, read in process; undefined for another
 * format or when the bytes are not plainly one of these (the caller asks ffprobe then). Never
 * throws.
 */
export function probeAudioBytes(data: Buffer, format: string): AudioBytesProbe | undefined {
  if (format === 'mp3') return probeMp3(data);
  if (format === 'wav') return probeWav(data);
  return undefined;
}

// ---------------------------------------------------------------------------------------
// MP3.

/** Bitrates in kbit/s by bitrate index 1-14, by MPEG-1 or MPEG-2/2.5 and layer. */
const BITRATES: Readonly<Record<string, readonly number[]>> = {
  '1/1': [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  '1/2': [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  '1/3': [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  '2/1': [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  '2/2': [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  '2/3': [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};

/** Sample rates by sample rate index 0-2, by version bits (0 MPEG-2.5, 2 MPEG-2, 3 MPEG-1; 1 is reserved). */
const SAMPLE_RATES: Readonly<Record<number, readonly number[]>> = {
  0: [11025, 12000, 8000],
  2: [22050, 24000, 16000],
  3: [44100, 48000, 32000],
};

/** One MPEG audio frame header, decoded. */
interface FrameHeader {
  /** Version bits: 0 MPEG-2.5, 2 MPEG-2, 3 MPEG-1. */
  version: number;
  /** 1, 2 or 3. */
  layer: number;
  sampleRate: number;
  mono: boolean;
  /** Bytes of the whole frame, header included. */
  size: number;
  samples: number;
}

/** The frame header at `at`; undefined when there is none (or a free-format one, whose size is not in it). */
function frameHeader(data: Buffer, at: number): FrameHeader | undefined {
  if (at + 4 > data.length) return undefined;
  const b1 = data[at + 1] ?? 0;
  const b2 = data[at + 2] ?? 0;
  if (data[at] !== 0xff || (b1 & 0xe0) !== 0xe0) return undefined;
  const version = (b1 >> 3) & 3;
  const layer = 4 - ((b1 >> 1) & 3); // bits 3, 2, 1 → layer I, II, III; 0 is reserved
  const bitrateIndex = b2 >> 4;
  const sampleRate = SAMPLE_RATES[version]?.[(b2 >> 2) & 3];
  if (layer === 4 || sampleRate === undefined || bitrateIndex === 0 || bitrateIndex === 15) return undefined;
  const mpeg1 = version === 3;
  const bitrate = (BITRATES[`${mpeg1 ? 1 : 2}/${layer}`]?.[bitrateIndex - 1] ?? 0) * 1000;
  const padding = (b2 >> 1) & 1;
  // Layer III of MPEG-2 and 2.5 has half the samples (576) in a frame, and so half the bytes.
  const samples = layer === 1 ? 384 : layer === 3 && !mpeg1 ? 576 : 1152;
  // Layer I counts its padding in 4-byte slots, the others in bytes.
  const size =
    layer === 1
      ? (Math.floor((12 * bitrate) / sampleRate) + padding) * 4
      : Math.floor(((samples / 8) * bitrate) / sampleRate) + padding;
  const mono = (data[at + 3] ?? 0) >> 6 === 3;
  return { version, layer, sampleRate, mono, size, samples };
}

/** Bytes of the ID3v2 tags at the start (0 when there are none); undefined for a malformed one. */
function id3v2Length(data: Buffer): number | undefined {
  let at = 0;
  // Some files carry more than one tag back to back; ffmpeg skips them all.
  while (at + 10 <= data.length && data.toString('latin1', at, at + 3) === 'ID3') {
    const size = data.subarray(at + 6, at + 10);
    if (size.some((b) => b >= 0x80)) return undefined;
    const footer = ((data[at + 5] ?? 0) & 0x10) !== 0 ? 10 : 0;
    at += 10 + footer + (((size[0] ?? 0) << 21) | ((size[1] ?? 0) << 14) | ((size[2] ?? 0) << 7) | (size[3] ?? 0));
  }
  return at;
}

/**
 * The audio frames a Xing/Info or VBRI header frame at `at` says the file has: a number, null for
 * such a frame that does not say, undefined when the frame is audio.
 */
function vbrHeaderFrames(data: Buffer, at: number, header: FrameHeader): number | null | undefined {
  if (header.layer !== 3) return undefined;
  // The Xing tag follows the side information, whose length depends on the version and channels.
  const sideInfo = header.version === 3 ? (header.mono ? 17 : 32) : header.mono ? 9 : 17;
  const xing = at + 4 + sideInfo;
  const tag = xing + 8 <= data.length ? data.toString('latin1', xing, xing + 4) : '';
  if (tag === 'Xing' || tag === 'Info') {
    const hasFrames = (data.readUInt32BE(xing + 4) & 1) !== 0;
    return hasFrames && xing + 12 <= data.length ? data.readUInt32BE(xing + 8) : null;
  }
  // The VBRI tag (Fraunhofer) sits 32 bytes after the header: version, delay, quality, bytes, frames.
  const vbri = at + 36;
  if (vbri + 18 <= data.length && data.toString('latin1', vbri, vbri + 4) === 'VBRI') {
    return data.readUInt16BE(vbri + 4) === 1 ? data.readUInt32BE(vbri + 14) : null;
  }
  return undefined;
}

/** MP3: the frames walked from the first to the last, each header where the previous frame ends. */
function probeMp3(data: Buffer): AudioBytesProbe | undefined {
  let at = id3v2Length(data);
  if (at === undefined) return undefined;
  const first = frameHeader(data, at);
  if (!first) return undefined;
  const declared = vbrHeaderFrames(data, at, first);
  // A Xing/Info or VBRI frame holds no audio of its own.
  let frames = declared === undefined ? 1 : 0;
  at += first.size;
  // An ID3v1 tag is the last 128 bytes, after the last frame.
  const end =
    data.length >= 128 && data.toString('latin1', data.length - 128, data.length - 125) === 'TAG'
      ? data.length - 128
      : data.length;
  while (at < end) {
    const next = frameHeader(data, at);
    if (
      !next ||
      next.version !== first.version ||
      next.layer !== first.layer ||
      next.sampleRate !== first.sampleRate ||
      at + next.size > end
    ) {
      // Frames that stop chaining before the end: cut short, damaged, or something else after them.
      return undefined;
    }
    frames++;
    at += next.size;
  }
  if (at > end) return undefined; // the first frame itself runs past the end
  // A declared count is ffmpeg's duration; it must agree with the frames actually there.
  if (typeof declared === 'number') {
    if (Math.abs(declared - frames) > 1) return undefined;
    frames = declared;
  }
  return {
    durationSeconds: (frames * first.samples) / first.sampleRate,
    sampleRate: first.sampleRate,
    hasAudio: frames > 0,
  };
}

// ---------------------------------------------------------------------------------------
// WAV.

/** WAVE_FORMAT_PCM, and WAVE_FORMAT_EXTENSIBLE (whose sub-format then says PCM). */
const WAVE_PCM = 1;
const WAVE_EXTENSIBLE = 0xfffe;

/** WAV: the `fmt ` chunk's layout and the `data` chunk's length (what is there of it). */
function probeWav(data: Buffer): AudioBytesProbe | undefined {
  if (data.length < 12 || data.toString('latin1', 0, 4) !== 'RIFF' || data.toString('latin1', 8, 12) !== 'WAVE') {
    return undefined;
  }
  let format: { sampleRate: number; blockAlign: number } | undefined;
  let at = 12;
  while (at + 8 <= data.length) {
    const id = data.toString('latin1', at, at + 4);
    const size = data.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + size > data.length) return undefined;
      const tag = data.readUInt16LE(body);
      const channels = data.readUInt16LE(body + 2);
      const sampleRate = data.readUInt32LE(body + 4);
      const blockAlign = data.readUInt16LE(body + 12);
      const bits = data.readUInt16LE(body + 14);
      // The extensible header's sub-format GUID starts with the format tag it stands for.
      const pcm =
        tag === WAVE_PCM || (tag === WAVE_EXTENSIBLE && size >= 40 && data.readUInt16LE(body + 24) === WAVE_PCM);
      if (!pcm || channels === 0 || sampleRate === 0 || bits === 0 || bits % 8 !== 0 || bits > 32) return undefined;
      if (blockAlign !== channels * (bits / 8)) return undefined;
      format = { sampleRate, blockAlign };
    } else if (id === 'data') {
      // A size of 0 with bytes after it is a stream that never went back to write its size.
      if (!format || (size === 0 && body < data.length)) return undefined;
      // A streamed WAV may declare more (or 0xFFFFFFFF) than it holds: count what is there.
      const bytes = Math.min(size, data.length - body);
      return {
        durationSeconds: bytes / (format.blockAlign * format.sampleRate),
        sampleRate: format.sampleRate,
        hasAudio: bytes >= format.blockAlign,
      };
    }
    // Chunks are padded to an even length.
    at = body + size + (size & 1);
  }
  return undefined;
}

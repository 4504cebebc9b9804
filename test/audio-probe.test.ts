// The in-process MP3 and WAV probe (src/lib/audio-probe.ts) against ffprobe on real files made
// by ffmpeg: the same length and sample rate, and no answer at all for bytes it cannot be sure
// of (cut short, damaged, another format), so that ffprobe is asked instead.
// Standalone (no database): node --test test/audio-probe.test.ts

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { convertAudio } from '../src/lib/audio.ts';
import { probeAudioBytes } from '../src/lib/audio-probe.ts';
import { probeMedia, runFfmpeg, runFfprobe, tempInput, withTempDir } from '../src/lib/ffmpeg.ts';

/** 2.345 s of a 440 Hz tone, as ffmpeg's lavfi source (resampled by the output options). */
const TONE = ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=2.345:sample_rate=48000'];

/**
 * Audio made by ffmpeg. Written to a file, the MP3 muxer goes back to fill in a Xing/Info frame
 * with the frame count; through a pipe it cannot, and the file is frames only (and the ID3v2 tag,
 * unless -id3v2_version 0).
 */
async function encode(args: string[], format: string, to: 'file' | 'pipe', seconds = TONE): Promise<Buffer> {
  if (to === 'pipe') return runFfmpeg([...seconds, ...args, '-f', format, 'pipe:1'], { what: 'test encoding' });
  return withTempDir(async (dir) => {
    const output = join(dir, `output.${format}`);
    await runFfmpeg([...seconds, ...args, '-f', format, '-y', output], { what: 'test encoding' });
    return readFile(output);
  });
}

/** The audio packets ffmpeg reads from the whole file (MPEG audio: one per frame, a Xing frame not counted). */
async function countedPackets(data: Buffer): Promise<number> {
  const out = await withTempDir(async (dir) =>
    runFfprobe([
      '-count_packets',
      '-show_entries',
      'stream=nb_read_packets',
      '-of',
      'csv=p=0',
      await tempInput(dir, 'input', data),
    ]),
  );
  return Number(out.toString('utf8').trim());
}

/** Pseudo-random bytes, the same on every run. */
function noise(length: number, seed: number): Buffer {
  const bytes = Buffer.alloc(length);
  let x = seed || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  return bytes;
}

interface Case {
  name: string;
  format: 'mp3' | 'wav';
  /** ffmpeg's muxer, when not the format's own. */
  muxer?: string;
  args: string[];
  to: 'file' | 'pipe';
  rate: number;
  /** Samples in an MPEG audio frame (MP3 only). */
  samplesPerFrame?: number;
  /**
   * How far ffprobe's duration may be from the probe's. With a Xing frame or a WAV header
   * ffprobe reads the length and rounds it to a microsecond; without one it estimates it from
   * the file size and the bitrate. Undefined where that estimate is not a measure (VBR without a
   * Xing frame: ffprobe is off by up to 0.1 s, the counted frames are the check).
   */
  tolerance?: number;
}

const LAME_CBR = (rate: number, channels: number, kbps: number) => [
  '-ar',
  String(rate),
  '-ac',
  String(channels),
  '-c:a',
  'libmp3lame',
  '-b:a',
  `${kbps}k`,
];
const LAME_VBR = (rate: number, channels: number) => [
  '-ar',
  String(rate),
  '-ac',
  String(channels),
  '-c:a',
  'libmp3lame',
  '-q:a',
  '4',
];
const NO_ID3 = ['-id3v2_version', '0'];
const EXACT = 1e-6;
/** ffprobe's estimate from the bitrate, for a CBR file without a Xing frame. */
const ESTIMATED = 5e-4;

const CASES: Case[] = [
  { name: 'CBR 44.1 kHz stereo, Xing', format: 'mp3', args: LAME_CBR(44100, 2, 128), to: 'file', rate: 44100 },
  {
    name: 'CBR 44.1 kHz stereo, bare frames',
    format: 'mp3',
    args: [...LAME_CBR(44100, 2, 128), ...NO_ID3],
    to: 'pipe',
    rate: 44100,
    tolerance: ESTIMATED,
  },
  {
    name: 'CBR 44.1 kHz stereo, ID3v2',
    format: 'mp3',
    args: LAME_CBR(44100, 2, 128),
    to: 'pipe',
    rate: 44100,
    tolerance: ESTIMATED,
  },
  { name: 'VBR 44.1 kHz stereo, Xing', format: 'mp3', args: LAME_VBR(44100, 2), to: 'file', rate: 44100 },
  {
    name: 'VBR 44.1 kHz stereo, no Xing',
    format: 'mp3',
    args: LAME_VBR(44100, 2),
    to: 'pipe',
    rate: 44100,
    tolerance: undefined,
  },
  { name: 'CBR 22.05 kHz mono (MPEG-2), Xing', format: 'mp3', args: LAME_CBR(22050, 1, 64), to: 'file', rate: 22050 },
  {
    name: 'CBR 22.05 kHz mono (MPEG-2), bare frames',
    format: 'mp3',
    args: [...LAME_CBR(22050, 1, 64), ...NO_ID3],
    to: 'pipe',
    rate: 22050,
    tolerance: ESTIMATED,
  },
  { name: 'VBR 22.05 kHz mono (MPEG-2), Xing', format: 'mp3', args: LAME_VBR(22050, 1), to: 'file', rate: 22050 },
  {
    name: 'VBR 22.05 kHz mono (MPEG-2), no Xing',
    format: 'mp3',
    args: LAME_VBR(22050, 1),
    to: 'pipe',
    rate: 22050,
    tolerance: undefined,
  },
  {
    name: 'CBR 16 kHz mono (MPEG-2), Xing, no ID3v2',
    format: 'mp3',
    args: [...LAME_CBR(16000, 1, 32), ...NO_ID3],
    to: 'file',
    rate: 16000,
  },
  {
    name: 'CBR 16 kHz mono (MPEG-2), bare frames',
    format: 'mp3',
    args: [...LAME_CBR(16000, 1, 32), ...NO_ID3],
    to: 'pipe',
    rate: 16000,
    tolerance: ESTIMATED,
  },
  {
    name: 'CBR 8 kHz mono (MPEG-2.5), bare frames',
    format: 'mp3',
    args: [...LAME_CBR(8000, 1, 16), ...NO_ID3],
    to: 'pipe',
    rate: 8000,
    tolerance: ESTIMATED,
  },
  // ffprobe counts the 128 bytes of an ID3v1 tag as audio at the bitrate when it estimates (8 ms at 128 kbit/s).
  {
    name: 'CBR 44.1 kHz stereo, ID3v2 and ID3v1, Xing',
    format: 'mp3',
    args: [...LAME_CBR(44100, 2, 128), '-metadata', 'title=Hello', '-write_id3v1', '1'],
    to: 'file',
    rate: 44100,
  },
  {
    name: 'CBR 44.1 kHz stereo, ID3v2 and ID3v1',
    format: 'mp3',
    args: [...LAME_CBR(44100, 2, 128), '-metadata', 'title=Hello', '-write_id3v1', '1'],
    to: 'pipe',
    rate: 44100,
    tolerance: 0.01,
  },
  // Layer II (ffmpeg's mp2 encoder): MPEG-1 and MPEG-2.
  {
    name: 'layer II 44.1 kHz stereo',
    format: 'mp3',
    muxer: 'mp2',
    args: ['-ar', '44100', '-ac', '2', '-c:a', 'mp2', '-b:a', '192k'],
    to: 'pipe',
    rate: 44100,
    samplesPerFrame: 1152,
    tolerance: ESTIMATED,
  },
  {
    name: 'layer II 24 kHz mono (MPEG-2)',
    format: 'mp3',
    muxer: 'mp2',
    args: ['-ar', '24000', '-ac', '1', '-c:a', 'mp2', '-b:a', '64k'],
    to: 'pipe',
    rate: 24000,
    samplesPerFrame: 1152,
    tolerance: ESTIMATED,
  },
  {
    name: 'WAV 16-bit mono 22.05 kHz',
    format: 'wav',
    args: ['-ar', '22050', '-ac', '1', '-c:a', 'pcm_s16le'],
    to: 'file',
    rate: 22050,
  },
  {
    name: 'WAV 16-bit stereo 44.1 kHz',
    format: 'wav',
    args: ['-ar', '44100', '-ac', '2', '-c:a', 'pcm_s16le'],
    to: 'file',
    rate: 44100,
  },
  // Through a pipe ffmpeg cannot go back for the sizes: the RIFF and data chunks say 0xFFFFFFFF.
  {
    name: 'WAV 16-bit mono 22.05 kHz, streamed',
    format: 'wav',
    args: ['-ar', '22050', '-ac', '1', '-c:a', 'pcm_s16le'],
    to: 'pipe',
    rate: 22050,
  },
  {
    name: 'WAV 16-bit stereo 44.1 kHz, streamed',
    format: 'wav',
    args: ['-ar', '44100', '-ac', '2', '-c:a', 'pcm_s16le'],
    to: 'pipe',
    rate: 44100,
  },
  {
    name: 'WAV 24-bit stereo 48 kHz (extensible)',
    format: 'wav',
    args: ['-ar', '48000', '-ac', '2', '-c:a', 'pcm_s24le'],
    to: 'file',
    rate: 48000,
  },
];

describe('in-process audio probe', () => {
  for (const c of CASES) {
    test(`${c.name}: the length and rate ffprobe finds`, async () => {
      const data = await encode(c.args, c.muxer ?? c.format, c.to);
      const mine = probeAudioBytes(data, c.format);
      assert.ok(mine, 'answered');
      const theirs = await probeMedia(data);
      assert.equal(mine.sampleRate, c.rate);
      assert.equal(mine.sampleRate, theirs.sampleRate);
      assert.equal(mine.hasAudio, true);
      const tolerance = 'tolerance' in c ? c.tolerance : EXACT;
      if (tolerance !== undefined) {
        const difference = Math.abs(mine.durationSeconds - theirs.durationSeconds);
        assert.ok(difference <= tolerance, `${mine.durationSeconds} s, ffprobe ${theirs.durationSeconds} s`);
      }
      if (c.format === 'mp3') {
        // Every frame ffmpeg reads, exactly: the probe counts what a decoder would.
        const samplesPerFrame = c.samplesPerFrame ?? (c.rate >= 32000 ? 1152 : 576);
        const frames = await countedPackets(data);
        assert.ok(Math.abs(mine.durationSeconds - (frames * samplesPerFrame) / c.rate) < 1e-9, `${frames} frames`);
      }
    });
  }

  test('a file cut short, or a Xing count that is not the file’s, is left to ffprobe', async () => {
    const bare = await encode([...LAME_CBR(44100, 2, 128), ...NO_ID3], 'mp3', 'pipe');
    assert.ok(probeAudioBytes(bare, 'mp3'));
    // Mid-frame.
    for (const cut of [1, 100, 417, 1000]) {
      assert.equal(probeAudioBytes(bare.subarray(0, bare.length - cut), 'mp3'), undefined, `cut ${cut}`);
    }
    assert.equal(probeAudioBytes(bare.subarray(0, 3), 'mp3'), undefined);
    // Half of a file with a Xing frame, cut where a frame ends (ffprobe would still say the whole length).
    const xing = await encode([...LAME_CBR(44100, 2, 128), ...NO_ID3], 'mp3', 'file');
    const whole = probeAudioBytes(xing, 'mp3');
    assert.ok(whole);
    const frameEnd = (data: Buffer, after: number) => {
      let at = 0;
      // 128 kbit/s at 44.1 kHz: 417 bytes a frame, 418 with the padding bit.
      while (at < after) at += 417 + (((data[at + 2] ?? 0) >> 1) & 1);
      assert.equal(data[at], 0xff, 'a frame starts there');
      return at;
    };
    assert.equal(probeAudioBytes(xing.subarray(0, frameEnd(xing, xing.length / 2)), 'mp3'), undefined);
    // The same cut without a Xing frame is a shorter MP3.
    const shorter = probeAudioBytes(bare.subarray(0, frameEnd(bare, bare.length / 2)), 'mp3');
    assert.ok(shorter && shorter.durationSeconds < whole.durationSeconds * 0.6, 'half as long');
    // A Xing count changed: one frame off is taken (ffmpeg's duration is the count), two are not.
    const flags = xing.indexOf('Info') + 4;
    assert.ok(flags > 4, 'an Info frame');
    const declared = xing.readUInt32BE(flags + 4);
    assert.equal(whole.durationSeconds, (declared * 1152) / 44100);
    const changed = (frames: number, flagBits = 0xf) => {
      const copy = Buffer.from(xing);
      copy.writeUInt32BE(flagBits, flags);
      copy.writeUInt32BE(frames, flags + 4);
      return probeAudioBytes(copy, 'mp3')?.durationSeconds;
    };
    assert.equal(changed(declared + 1), ((declared + 1) * 1152) / 44100);
    assert.equal(changed(declared - 1), ((declared - 1) * 1152) / 44100);
    for (const off of [2, -2, 10, -declared]) assert.equal(changed(declared + off), undefined, `${off} frames off`);
    // Without its frame count, the frames are counted (the Info frame not among them).
    assert.equal(changed(declared + 10, 0), whole.durationSeconds);
    // Something that is not a frame after the last one.
    assert.equal(
      probeAudioBytes(Buffer.concat([bare, Buffer.from('APETAGEX and more than a frame header')]), 'mp3'),
      undefined,
    );
  });

  test('every version, layer, bitrate and sample rate: frames chain where ffmpeg finds them', async () => {
    // Bitrates in kbit/s by index 1-14 (ISO 11172-3 and 13818-3), by MPEG-1 or MPEG-2/2.5 and layer.
    const kbps: Record<string, number[]> = {
      '1/1': [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
      '1/2': [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
      '1/3': [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
      '2/1': [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
      '2/2': [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
      '2/3': [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
    };
    const rates: Record<number, number[]> = {
      3: [44100, 48000, 32000],
      2: [22050, 24000, 16000],
      0: [11025, 12000, 8000],
    };
    for (const version of [3, 2, 0]) {
      for (const layer of [1, 2, 3]) {
        for (const [rateIndex, rate] of (rates[version] ?? []).entries()) {
          // One frame of each bitrate, unpadded and padded, silent (the sizes are all that matter).
          const frames: Buffer[] = [];
          for (const [index, rateKbps] of (kbps[`${version === 3 ? 1 : 2}/${layer}`] ?? []).entries()) {
            for (const padding of [0, 1]) {
              const bits = rateKbps * 1000;
              const size =
                layer === 1
                  ? (Math.floor((12 * bits) / rate) + padding) * 4
                  : Math.floor(((layer === 3 && version !== 3 ? 72 : 144) * bits) / rate) + padding;
              const frame = Buffer.alloc(size);
              frame.set([
                0xff,
                0xe1 | (version << 3) | ((4 - layer) << 1),
                ((index + 1) << 4) | (rateIndex << 2) | (padding << 1),
                0xc0,
              ]);
              frames.push(frame);
            }
          }
          const data = Buffer.concat(frames);
          const what = `MPEG version bits ${version}, layer ${layer}, ${rate} Hz`;
          assert.equal(await countedPackets(data), 28, `${what}: ffmpeg finds the 28 frames`);
          const samplesPerFrame = layer === 1 ? 384 : layer === 3 && version !== 3 ? 576 : 1152;
          assert.deepEqual(
            probeAudioBytes(data, 'mp3'),
            { durationSeconds: (28 * samplesPerFrame) / rate, sampleRate: rate, hasAudio: true },
            what,
          );
        }
      }
    }
  });

  test('frames that change version or sample rate, and ID3v2 tags with a footer or back to back', async () => {
    const at = async (rate: number) => encode([...LAME_CBR(rate, 1, 32), ...NO_ID3], 'mp3', 'pipe');
    const [r44, r48, r22] = [await at(44100), await at(48000), await at(22050)];
    assert.ok(probeAudioBytes(r44, 'mp3') && probeAudioBytes(r48, 'mp3') && probeAudioBytes(r22, 'mp3'));
    assert.equal(probeAudioBytes(Buffer.concat([r44, r48]), 'mp3'), undefined, 'another sample rate');
    assert.equal(probeAudioBytes(Buffer.concat([r44, r22]), 'mp3'), undefined, 'another version');
    // An ID3v2.4 tag of 20 bytes with a footer (flag 0x10, the header again as '3DI'), then a second tag.
    const tag = (footer: boolean) => {
      const header = Buffer.from([0x49, 0x44, 0x33, 4, 0, footer ? 0x10 : 0, 0, 0, 0, 20]);
      const closing = footer ? Buffer.concat([Buffer.from('3DI'), header.subarray(3)]) : Buffer.alloc(0);
      return Buffer.concat([header, Buffer.alloc(20), closing]);
    };
    const tagged = Buffer.concat([tag(true), tag(false), r44]);
    assert.deepEqual(probeAudioBytes(tagged, 'mp3'), probeAudioBytes(r44, 'mp3'));
    assert.ok(
      Math.abs((probeAudioBytes(tagged, 'mp3')?.durationSeconds ?? 0) - (await probeMedia(tagged)).durationSeconds) <=
        ESTIMATED,
    );
  });

  test('a valid first frame header with random bytes after it is no answer', async () => {
    const bare = await encode([...LAME_CBR(44100, 2, 128), ...NO_ID3], 'mp3', 'pipe');
    const firstFrame = bare.subarray(0, 417);
    assert.ok(probeAudioBytes(firstFrame, 'mp3'), 'the frame alone is an MP3');
    const xing = await encode(LAME_CBR(44100, 2, 128), 'mp3', 'file');
    for (let seed = 1; seed <= 200; seed++) {
      const random = noise(200 + seed * 97, seed);
      assert.equal(probeAudioBytes(Buffer.concat([firstFrame, random]), 'mp3'), undefined, `seed ${seed}`);
      // The frames of a real file, then random bytes.
      assert.equal(probeAudioBytes(Buffer.concat([bare.subarray(0, 417 * 20), random]), 'mp3'), undefined);
      // A real ID3v2 tag and Xing frame, then random bytes.
      assert.equal(probeAudioBytes(Buffer.concat([xing.subarray(0, 1000), random]), 'mp3'), undefined);
    }
  });

  test('garbage, empty and other formats are no answer, never an error', async () => {
    const inputs: Buffer[] = [
      Buffer.alloc(0),
      Buffer.alloc(5000),
      Buffer.alloc(5000, 0xff),
      Buffer.from('ID3'),
      Buffer.from('ID3\x04\x00\x00\x7f\x7f\x7f\x7f', 'latin1'), // a tag bigger than the data
      Buffer.from('ID3\x04\x00\x00\x80\x00\x00\x00', 'latin1'), // not syncsafe
      Buffer.from('RIFF'),
      Buffer.from('RIFF\xff\xff\xff\xffWAVEfmt \xff\xff\xff\xff', 'latin1'),
      Buffer.from('RIFF\x00\x00\x00\x00WAVEdata\x10\x00\x00\x00', 'latin1'), // data before fmt
      Buffer.from('{"error": "not audio"}'),
    ];
    for (let seed = 1; seed <= 300; seed++) inputs.push(noise(seed * 7, seed));
    // A frame header whose bitrate index is 0 (free format) and one of 15 (invalid).
    inputs.push(Buffer.concat([Buffer.from([0xff, 0xfb, 0x00, 0x00]), Buffer.alloc(1000)]));
    inputs.push(Buffer.concat([Buffer.from([0xff, 0xfb, 0xf0, 0x00]), Buffer.alloc(1000)]));
    for (const [format, args] of [
      ['ogg', ['-c:a', 'libvorbis']],
      ['flac', ['-c:a', 'flac']],
      ['adts', ['-c:a', 'aac']],
      ['wav', ['-c:a', 'pcm_s16le']],
      ['mp3', ['-c:a', 'libmp3lame']],
    ] as const) {
      const data = await encode([...args], format, 'pipe');
      for (const as of ['mp3', 'wav'] as const) {
        if (as === format) continue;
        assert.equal(probeAudioBytes(data, as), undefined, `${format} read as ${as}`);
      }
      assert.equal(probeAudioBytes(data, 'ogg'), undefined, 'only MP3 and WAV are read');
    }
    for (const data of inputs) {
      for (const format of ['mp3', 'wav']) assert.equal(probeAudioBytes(data, format), undefined, data.toString('hex'));
    }
    // WAV that is not integer PCM: 32-bit float.
    const float = await encode(['-c:a', 'pcm_f32le'], 'wav', 'file');
    assert.equal(probeAudioBytes(float, 'wav'), undefined);
  });

  test('WAV chunks: other chunks skipped with their padding, a size past the end clamped', async () => {
    const wav = await encode(
      ['-ar', '22050', '-ac', '1', '-c:a', 'pcm_s16le', '-map_metadata', '-1', '-fflags', '+bitexact'],
      'wav',
      'file',
    );
    assert.equal(wav.toString('latin1', 36, 40), 'data', 'a plain 44-byte header');
    const samples = wav.subarray(44);
    // An odd-sized chunk (3 bytes and a pad byte) between fmt and data.
    const odd = Buffer.concat([
      wav.subarray(0, 36),
      Buffer.from('junk\x03\x00\x00\x00abc\x00', 'latin1'),
      wav.subarray(36),
    ]);
    const probed = probeAudioBytes(odd, 'wav');
    assert.ok(probed);
    assert.equal(probed.durationSeconds, samples.length / 2 / 22050);
    assert.ok(Math.abs(probed.durationSeconds - (await probeMedia(odd)).durationSeconds) <= EXACT);
    // Cut short (mid-sample): what is there.
    const cut = wav.subarray(0, 44 + 10_001);
    assert.equal(probeAudioBytes(cut, 'wav')?.durationSeconds, 10_001 / 2 / 22050);
    // ffprobe counts the half sample as a whole one.
    assert.ok(Math.abs(10_001 / 2 / 22050 - (await probeMedia(cut)).durationSeconds) <= 0.5 / 22050 + EXACT);
    // A data size of 0 with samples after it is a stream that never wrote its size.
    const unsized = Buffer.from(wav);
    unsized.writeUInt32LE(0, 40);
    assert.equal(probeAudioBytes(unsized, 'wav'), undefined);
  });

  test('no audio frames: the probe says so, and the conversion refuses the audio', async () => {
    const silent = await encode(LAME_CBR(44100, 2, 128), 'mp3', 'file', [...TONE, '-t', '0']);
    assert.deepEqual(probeAudioBytes(silent, 'mp3'), { durationSeconds: 0, sampleRate: 44100, hasAudio: false });
    const emptyWav = await encode(['-c:a', 'pcm_s16le', '-ar', '22050'], 'wav', 'file', [...TONE, '-t', '0']);
    assert.deepEqual(probeAudioBytes(emptyWav, 'wav'), { durationSeconds: 0, sampleRate: 22050, hasAudio: false });
    const same = { pcmRate: 22050, gain: 1, tempo: 1 };
    for (const [data, contentType, format] of [
      [silent, 'audio/mpeg', 'mp3'],
      [emptyWav, 'audio/wav', 'wav'],
    ] as const) {
      await assert.rejects(convertAudio({ data, contentType }, { format, ...same }), /has no sound/, format);
    }
  });

  test('audio kept as it is is measured in process, and by ffprobe when the probe is not sure', async () => {
    const same = { pcmRate: 22050, gain: 1, tempo: 1 };
    const mp3 = await encode(LAME_VBR(22050, 1), 'mp3', 'file');
    const kept = await convertAudio({ data: mp3, contentType: 'audio/mpeg' }, { format: 'mp3', ...same });
    assert.equal(kept.data, mp3);
    // Exactly the probe's figure: ffprobe's would be rounded to the microsecond.
    assert.equal(kept.durationSeconds, probeAudioBytes(mp3, 'mp3')?.durationSeconds);
    const wav = await encode(['-ar', '44100', '-ac', '2', '-c:a', 'pcm_s16le'], 'wav', 'pipe');
    const keptWav = await convertAudio({ data: wav, contentType: 'audio/wav' }, { format: 'wav', ...same });
    assert.equal(keptWav.durationSeconds, probeAudioBytes(wav, 'wav')?.durationSeconds);
    // Bytes after the last frame: the probe does not answer, ffprobe reads the file.
    const tail = Buffer.concat([mp3, Buffer.from('APETAGEX and more than a frame header')]);
    assert.equal(probeAudioBytes(tail, 'mp3'), undefined);
    const measured = await convertAudio({ data: tail, contentType: 'audio/mpeg' }, { format: 'mp3', ...same });
    assert.equal(measured.durationSeconds, (await probeMedia(tail)).durationSeconds);
  });
});

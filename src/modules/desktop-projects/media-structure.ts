// Walks the container structure of an accepted format from its first byte to its last: a file
// that ends early is truncated, bytes after the format's own end (an appended ZIP, HTML or
// script) make a polyglot, and markup or archive signatures near either end are refused too.
// Pure functions over the whole file; every refusal is a 422 media_rejected with the reason.
import { crc32 } from 'node:zlib';
import { isMpegAudioFrame, type MediaFormat, mediaRejected, readVint } from './media-formats.ts';

function truncated(what: string): never {
  throw mediaRejected(`the file is truncated or corrupt (${what})`);
}

function corrupt(what: string): never {
  throw mediaRejected(`the file is corrupt (${what})`);
}

function trailing(bytes: number, after: string): never {
  throw mediaRejected(
    `${bytes} byte${bytes === 1 ? '' : 's'} of extra data after ${after} (appended data is refused: it is how polyglot files hide a second format)`,
  );
}

/** PNG: chunks with valid CRCs from IHDR to IEND, which must be the last bytes. */
function checkPng(buf: Buffer): void {
  let pos = 8;
  let first = true;
  for (;;) {
    if (pos + 12 > buf.length) truncated('the PNG ends before its IEND chunk');
    const length = buf.readUInt32BE(pos);
    const type = buf.toString('latin1', pos + 4, pos + 8);
    if (!/^[A-Za-z]{4}$/.test(type) || length > 0x7fffffff) corrupt(`bad PNG chunk at byte ${pos}`);
    const end = pos + 12 + length;
    if (end > buf.length) truncated(`the PNG chunk ${type} runs past the end of the file`);
    if (first && type !== 'IHDR') corrupt('the PNG does not start with IHDR');
    first = false;
    if (crc32(buf.subarray(pos + 4, pos + 8 + length)) !== buf.readUInt32BE(pos + 8 + length)) {
      corrupt(`the PNG chunk ${type} at byte ${pos} has a bad checksum`);
    }
    pos = end;
    if (type === 'IEND') break;
  }
  if (pos < buf.length) trailing(buf.length - pos, 'the end of the PNG image (IEND)');
}

/** Offset just after the EOI marker of the JPEG starting at `start`, following its segments and scans. */
function jpegEnd(buf: Buffer, start: number): number {
  let pos = start + 2;
  let sawFrame = false;
  for (;;) {
    if (pos >= buf.length) truncated('the JPEG ends before its EOI marker');
    if (buf[pos] !== 0xff) corrupt(`expected a JPEG marker at byte ${pos}`);
    while (buf[pos] === 0xff) pos++; // fill bytes
    const marker = buf[pos];
    if (marker === undefined) truncated('the JPEG ends inside a marker');
    pos++;
    if (marker === 0xd9) return pos;
    if (marker === 0x00 || marker === 0xd8) corrupt(`unexpected JPEG marker 0x${marker.toString(16)}`);
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) continue;
    if (pos + 2 > buf.length) truncated('the JPEG ends inside a segment header');
    const length = buf.readUInt16BE(pos);
    if (length < 2) corrupt(`bad JPEG segment length at byte ${pos}`);
    pos += length;
    if (pos > buf.length) truncated('a JPEG segment runs past the end of the file');
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) sawFrame = true;
    if (marker === 0xda) {
      if (!sawFrame) corrupt('a JPEG scan comes before the frame header');
      // Entropy-coded data runs to the next marker that is neither a stuffed 0xFF00 nor a restart.
      for (;;) {
        const ff = buf.indexOf(0xff, pos);
        if (ff === -1 || ff + 1 >= buf.length) truncated('the JPEG ends inside its image data');
        const next = buf[ff + 1] as number;
        if (next === 0x00 || (next >= 0xd0 && next <= 0xd7)) pos = ff + 2;
        else if (next === 0xff) pos = ff + 1;
        else {
          pos = ff;
          break;
        }
      }
    }
  }
}

/**
 * JPEG: segments and scans up to EOI. After EOI only further complete JPEG images may follow
 * (the Multi-Picture Format of phone cameras stores its extra images there); anything else is refused.
 */
function checkJpeg(buf: Buffer): void {
  let end = jpegEnd(buf, 0);
  while (end < buf.length && buf[end] === 0xff && buf[end + 1] === 0xd8 && buf[end + 2] === 0xff) {
    end = jpegEnd(buf, end);
  }
  if (end < buf.length) trailing(buf.length - end, 'the end of the JPEG image (EOI marker)');
}

/** GIF: header, colour table, then image and extension blocks up to the trailer, which must be the last byte. */
function checkGif(buf: Buffer): void {
  if (buf.length < 13) truncated('the GIF header is incomplete');
  let pos = 13;
  const screen = buf[10] as number;
  if (screen & 0x80) pos += 3 * (1 << ((screen & 7) + 1));
  const subBlocks = () => {
    for (;;) {
      const size = buf[pos];
      if (size === undefined) truncated('the GIF ends inside a data block');
      pos += 1 + size;
      if (size === 0) return;
    }
  };
  for (;;) {
    const block = buf[pos];
    if (block === undefined || pos >= buf.length) truncated('the GIF ends before its trailer');
    if (block === 0x3b) {
      pos++;
      break;
    }
    if (block === 0x2c) {
      if (pos + 10 > buf.length) truncated('the GIF ends inside an image descriptor');
      const packed = buf[pos + 9] as number;
      pos += 10;
      if (packed & 0x80) pos += 3 * (1 << ((packed & 7) + 1));
      pos += 1; // LZW minimum code size
      subBlocks();
    } else if (block === 0x21) {
      pos += 2; // introducer and label
      subBlocks();
    } else {
      corrupt(`unexpected GIF block 0x${block.toString(16)} at byte ${pos}`);
    }
  }
  if (pos > buf.length) truncated('the GIF ends inside a block');
  if (pos < buf.length) trailing(buf.length - pos, 'the end of the GIF image (trailer)');
}

/** RIFF (WebP, WAV): the length in the header must be the file's length (plus one pad byte). */
function checkRiff(buf: Buffer, name: string): void {
  if (buf.length < 12) truncated(`the ${name} header is incomplete`);
  const size = buf.readUInt32LE(4);
  if (size === 0 || size === 0xffffffff)
    corrupt(`the ${name} header does not give the file's length (re-save the file)`);
  const end = 8 + size;
  if (end > buf.length) truncated(`the ${name} header promises ${end} bytes, the file has ${buf.length}`);
  const padded = end + (size % 2);
  if (buf.length > padded) trailing(buf.length - end, `the end of the ${name} data (RIFF length)`);
}

/** MP4/MOV/M4A: top-level boxes must tile the file exactly, one of them the movie header (moov). */
function checkIsoBmff(buf: Buffer): void {
  let pos = 0;
  let sawMovie = false;
  while (pos < buf.length) {
    if (pos + 8 > buf.length) truncated(`${buf.length - pos} bytes at the end are not a whole MP4 box`);
    let size = buf.readUInt32BE(pos);
    const type = buf.toString('latin1', pos + 4, pos + 8);
    if (!/^[\x20-\x7e\xa9]{4}$/.test(type)) {
      if (sawMovie) trailing(buf.length - pos, 'the last MP4 box');
      corrupt(`the bytes at ${pos} are not an MP4 box`);
    }
    let header = 8;
    if (size === 1) {
      if (pos + 16 > buf.length) truncated('the file ends inside an MP4 box header');
      size = Number(buf.readBigUInt64BE(pos + 8));
      header = 16;
    } else if (size === 0) {
      size = buf.length - pos; // the last box runs to the end of the file
    }
    if (size < header) corrupt(`bad size of the MP4 box '${type}' at byte ${pos}`);
    if (pos + size > buf.length) {
      truncated(`the MP4 box '${type}' at byte ${pos} runs ${pos + size - buf.length} bytes past the end of the file`);
    }
    if (type === 'moov') sawMovie = true;
    pos += size;
  }
  if (!sawMovie) corrupt('the MP4/MOV file has no movie header (moov box)');
}

/** WebM: the EBML header, then one Segment whose size (when recorded) ends exactly at the end of the file. */
function checkWebm(buf: Buffer): void {
  const headerSize = readVint(buf, 4);
  if (!headerSize || headerSize.value === null) truncated('the WebM header is incomplete');
  let pos = 4 + headerSize.length + headerSize.value;
  const id = readVint(buf, pos, true);
  if (!id) truncated('the WebM file ends after its header');
  if (id.value !== 0x18538067) corrupt('the WebM header is not followed by a Segment');
  const size = readVint(buf, pos + id.length);
  if (!size) truncated('the WebM Segment header is incomplete');
  pos += id.length + size.length;
  if (size.value === null) return; // live-recorded: unknown size, the decoder checks the rest
  const end = pos + size.value;
  if (end > buf.length) truncated(`the WebM Segment runs ${end - buf.length} bytes past the end of the file`);
  if (end < buf.length) trailing(buf.length - end, 'the end of the WebM Segment');
}

/** Ogg: pages back to back from the first byte to the last. */
function checkOgg(buf: Buffer): void {
  let pos = 0;
  while (pos < buf.length) {
    if (buf.toString('latin1', pos, pos + 4) !== 'OggS') {
      if (pos > 0) trailing(buf.length - pos, 'the last Ogg page');
      corrupt('not an Ogg page');
    }
    if (pos + 27 > buf.length) truncated('the file ends inside an Ogg page header');
    const segments = buf[pos + 26] as number;
    if (pos + 27 + segments > buf.length) truncated('the file ends inside an Ogg page header');
    let body = 0;
    for (let i = 0; i < segments; i++) body += buf[pos + 27 + i] as number;
    pos += 27 + segments + body;
    if (pos > buf.length) truncated('the last Ogg page is incomplete');
  }
}

/** FLAC: STREAMINFO first, metadata blocks in order, then an audio frame. */
function checkFlac(buf: Buffer): void {
  let pos = 4;
  let first = true;
  for (;;) {
    if (pos + 4 > buf.length) truncated('the file ends inside the FLAC metadata');
    const header = buf[pos] as number;
    const type = header & 0x7f;
    const length = buf.readUIntBE(pos + 1, 3);
    if (type === 127 || (first && (type !== 0 || length !== 34))) corrupt('bad FLAC metadata block');
    first = false;
    pos += 4 + length;
    if (pos > buf.length) truncated('a FLAC metadata block runs past the end of the file');
    if (header & 0x80) break;
  }
  if (!(buf[pos] === 0xff && ((buf[pos + 1] as number) & 0xfe) === 0xf8))
    corrupt('no FLAC audio frame after the metadata');
}

const BITRATES: Record<string, readonly number[]> = {
  // kbit/s by index 1-14, for MPEG-1 layers I, II, III and MPEG-2/2.5 layer I, layers II/III.
  '1-1': [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  '1-2': [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  '1-3': [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  '2-1': [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  '2-2': [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const SAMPLE_RATES: Record<number, readonly number[]> = {
  3: [44100, 48000, 32000],
  2: [22050, 24000, 16000],
  0: [11025, 12000, 8000],
};

/** Length in bytes of the MPEG audio frame whose header is at `pos`; undefined for free-format bitrates. */
function mpegFrameLength(buf: Buffer, pos: number): number | undefined {
  const b1 = buf[pos + 1] as number;
  const b2 = buf[pos + 2] as number;
  const version = (b1 >> 3) & 3; // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
  const layer = 4 - ((b1 >> 1) & 3); // 1, 2 or 3
  const index = b2 >> 4;
  if (index === 0) return undefined;
  const table = version === 3 ? `1-${layer}` : layer === 1 ? '2-1' : '2-2';
  const bitrate = (BITRATES[table]?.[index - 1] ?? 0) * 1000;
  const rate = SAMPLE_RATES[version]?.[(b2 >> 2) & 3] ?? 0;
  const padding = (b2 >> 1) & 1;
  if (layer === 1) return (Math.floor((12 * bitrate) / rate) + padding) * 4;
  const perFrame = layer === 3 && version !== 3 ? 72 : 144;
  return Math.floor((perFrame * bitrate) / rate) + padding;
}

/** MP3: an optional ID3v2 tag, then MPEG audio frames that chain (the first three are followed). */
function checkMp3(buf: Buffer): void {
  let pos = 0;
  if (buf.toString('latin1', 0, 3) === 'ID3') {
    if (buf.length < 10) truncated('the ID3 tag header is incomplete');
    const sizeBytes = buf.subarray(6, 10);
    if (sizeBytes.some((b) => b >= 0x80)) corrupt('bad ID3 tag size');
    const size = sizeBytes.reduce((acc, b) => acc * 128 + b, 0);
    pos = 10 + size + ((buf[5] as number) & 0x10 ? 10 : 0);
    while (buf[pos] === 0) pos++; // padding some taggers leave after the tag
  }
  if (pos >= buf.length) truncated('no audio after the ID3 tag');
  for (let frame = 0; frame < 3 && pos < buf.length; frame++) {
    if (!isMpegAudioFrame(buf, pos)) {
      if (frame === 0) corrupt('no MPEG audio frame where the audio should start');
      const rest = buf.toString('latin1', pos, pos + 8);
      if (rest.startsWith('TAG') || rest.startsWith('APETAGEX') || rest.startsWith('LYRICS')) return;
      corrupt(`MPEG audio frame ${frame + 1} is not followed by another frame`);
    }
    const length = mpegFrameLength(buf, pos);
    if (length === undefined || length < 4) return;
    pos += length;
  }
}

// ---------------------------------------------------------------------------------------
// Markup and archives hidden in media.

const EDGE_BYTES = 1024;

/** Text a browser would run or render, refused near either end of any file. */
const EDGE_MARKUP = [
  '<script',
  '<html',
  '<!doctype',
  '<?php',
  '<svg',
  '<body',
  '<iframe',
  '<object',
  '<embed',
  'javascript:',
];

/** Signatures of other formats appended to or prefixed into media (ZIP central directory, PDF, ELF). */
const EDGE_SIGNATURES = ['PK\x03\x04', 'PK\x01\x02', 'PK\x05\x06', '%PDF-', '\x7fELF'];

const SCRIPT = Buffer.from('<script');

/** Whether `<script` (any case) occurs anywhere in the bytes. */
function containsScriptTag(buf: Buffer): boolean {
  for (let at = buf.indexOf(0x3c); at !== -1 && at + SCRIPT.length <= buf.length; at = buf.indexOf(0x3c, at + 1)) {
    let match = true;
    for (let i = 1; i < SCRIPT.length && match; i++) match = ((buf[at + i] as number) | 0x20) === SCRIPT[i];
    if (match) return true;
  }
  return false;
}

/** What the hidden-content check needs of a file: its first and last KiB, and whether `<script` occurs in it. */
export interface EdgeScan {
  head: Buffer;
  /** The last KiB, without the bytes of `head` (empty for a file of a KiB or less). */
  tail: Buffer;
  scriptTag: boolean;
}

/** The scan of a file held whole. */
function scanOf(buf: Buffer): EdgeScan {
  return {
    head: buf.subarray(0, EDGE_BYTES),
    tail: buf.subarray(Math.max(EDGE_BYTES, buf.length - EDGE_BYTES)),
    scriptTag: containsScriptTag(buf),
  };
}

/** The same scan made chunk by chunk, as a file streams in: memory stays at two KiB. */
export class EdgeScanner {
  private head = Buffer.alloc(0);
  private last = Buffer.alloc(0);
  private size = 0;
  private scriptTag = false;

  push(chunk: Buffer): void {
    if (this.head.length < EDGE_BYTES) {
      this.head = Buffer.concat([this.head, chunk.subarray(0, EDGE_BYTES - this.head.length)]);
    }
    // The previous chunk's end goes along, so a tag split between two chunks is still seen.
    const window = Buffer.concat([this.last.subarray(-(SCRIPT.length - 1)), chunk]);
    this.scriptTag ||= containsScriptTag(window);
    this.last = Buffer.concat([this.last, chunk]).subarray(-EDGE_BYTES);
    this.size += chunk.length;
  }

  result(): EdgeScan {
    const tailBytes = this.size - Math.max(EDGE_BYTES, this.size - EDGE_BYTES);
    return {
      head: this.head,
      tail: tailBytes > 0 ? this.last.subarray(this.last.length - tailBytes) : Buffer.alloc(0),
      scriptTag: this.scriptTag,
    };
  }
}

/**
 * Refuses markup or another format's signature in the first or last KiB, and a `<script` tag
 * anywhere: the usual ways a media file doubles as an HTML page, a script or an archive.
 */
export function checkEmbedded(buf: Buffer): void {
  checkEdgeScan(scanOf(buf));
}

/** checkEmbedded from a scan made while the file streamed in. */
export function checkEdgeScan(scan: EdgeScan): void {
  for (const edge of [scan.head, scan.tail]) {
    const text = edge.toString('latin1');
    const lower = text.toLowerCase();
    const markup = EDGE_MARKUP.find((token) => lower.includes(token));
    if (markup)
      throw mediaRejected(`the file contains markup ('${markup}'): HTML or script hidden in media is refused`);
    const signature = EDGE_SIGNATURES.find((sig) => text.includes(sig));
    if (signature) {
      const what = signature.startsWith('PK')
        ? 'a ZIP archive'
        : signature === '%PDF-'
          ? 'a PDF document'
          : 'an ELF executable';
      throw mediaRejected(`the file contains ${what} besides the media (polyglot files are refused)`);
    }
  }
  if (scan.scriptTag) throw mediaRejected("the file contains a '<script' tag: script hidden in media is refused");
}

const CHECKS: Readonly<Record<MediaFormat, (bytes: Buffer) => void>> = {
  png: checkPng,
  jpeg: checkJpeg,
  gif: checkGif,
  webp: (bytes) => checkRiff(bytes, 'WebP'),
  wav: (bytes) => checkRiff(bytes, 'WAV'),
  mp4: checkIsoBmff,
  mov: checkIsoBmff,
  m4a: checkIsoBmff,
  webm: checkWebm,
  ogg: checkOgg,
  flac: checkFlac,
  mp3: checkMp3,
};

/** Checks that the bytes are exactly one well-formed file of `format`, with nothing hidden at either end. */
export function checkStructure(bytes: Buffer, format: MediaFormat): void {
  CHECKS[format](bytes);
}

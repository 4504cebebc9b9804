// The media types a desktop project upload may be, their limits, what the client declares and
// what the first bytes say. Pure functions over bytes; every refusal is a 422 media_rejected
// whose message says why.
import { AppError } from '../../lib/errors.ts';

export type MediaKind = 'image' | 'video' | 'audio';

export type MediaFormat =
  | 'png'
  | 'jpeg'
  | 'webp'
  | 'gif'
  | 'mp4'
  | 'mov'
  | 'webm'
  | 'mp3'
  | 'wav'
  | 'ogg'
  | 'flac'
  | 'm4a';

interface FormatSpec {
  kind: MediaKind;
  /** The type stored and answered. */
  contentType: string;
  /** Other Content-Type values clients send for the same format. */
  aliases: readonly string[];
  /** Filename extensions (lowercase, without the dot) that go with the format. */
  extensions: readonly string[];
  /** For messages: 'a PNG image'. */
  label: string;
}

export const FORMATS: Readonly<Record<MediaFormat, FormatSpec>> = {
  png: { kind: 'image', contentType: 'image/png', aliases: [], extensions: ['png'], label: 'a PNG image' },
  jpeg: {
    kind: 'image',
    contentType: 'image/jpeg',
    aliases: ['image/jpg', 'image/pjpeg'],
    extensions: ['jpg', 'jpeg', 'jpe', 'jfif'],
    label: 'a JPEG image',
  },
  webp: { kind: 'image', contentType: 'image/webp', aliases: [], extensions: ['webp'], label: 'a WebP image' },
  gif: { kind: 'image', contentType: 'image/gif', aliases: [], extensions: ['gif'], label: 'a GIF image' },
  mp4: { kind: 'video', contentType: 'video/mp4', aliases: [], extensions: ['mp4', 'm4v'], label: 'an MP4 video' },
  mov: {
    kind: 'video',
    contentType: 'video/quicktime',
    aliases: [],
    extensions: ['mov', 'qt'],
    label: 'a QuickTime (MOV) video',
  },
  webm: { kind: 'video', contentType: 'video/webm', aliases: [], extensions: ['webm'], label: 'a WebM video' },
  mp3: {
    kind: 'audio',
    contentType: 'audio/mpeg',
    aliases: ['audio/mp3', 'audio/mpeg3', 'audio/x-mpeg', 'audio/x-mp3'],
    extensions: ['mp3'],
    label: 'an MP3 audio file',
  },
  wav: {
    kind: 'audio',
    contentType: 'audio/wav',
    aliases: ['audio/x-wav', 'audio/wave', 'audio/vnd.wave'],
    extensions: ['wav'],
    label: 'a WAV audio file',
  },
  ogg: {
    kind: 'audio',
    contentType: 'audio/ogg',
    aliases: ['application/ogg', 'audio/vorbis', 'audio/opus'],
    extensions: ['ogg', 'oga', 'opus'],
    label: 'an Ogg audio file',
  },
  flac: {
    kind: 'audio',
    contentType: 'audio/flac',
    aliases: ['audio/x-flac'],
    extensions: ['flac'],
    label: 'a FLAC audio file',
  },
  m4a: {
    kind: 'audio',
    contentType: 'audio/mp4',
    aliases: ['audio/x-m4a', 'audio/m4a'],
    // An audio-only MP4 is often named .mp4; declared audio/mp4 it is audio.
    extensions: ['m4a', 'mp4'],
    label: 'an M4A (MP4 audio) file',
  },
};

const MiB = 1024 * 1024;

/** Documented limits per kind (docs/desktop-projects.md). */
export const MEDIA_LIMITS = {
  image: { maxBytes: 20 * MiB, maxSide: 8192, maxPixels: 8192 * 8192 },
  video: { maxBytes: 200 * MiB, maxSide: 8192, maxSeconds: 600 },
  audio: { maxBytes: 50 * MiB, maxSeconds: 1800 },
} as const;

/** The largest upload of any kind: the multipart file size limit. */
export const MAX_UPLOAD_BYTES = MEDIA_LIMITS.video.maxBytes;

/** The types accepted, for messages and docs. */
export const ACCEPTED_TYPES = Object.values(FORMATS)
  .map((f) => f.contentType)
  .join(', ');

/** A 422 with the reason in the message and as a detail on the `file` field. */
export function mediaRejected(reason: string): AppError {
  return new AppError('media_rejected', `The file was rejected: ${reason}`, [{ field: 'file', message: reason }]);
}

export interface DeclaredMedia {
  format: MediaFormat;
  kind: MediaKind;
  /** Canonical content type (aliases resolved). */
  contentType: string;
  /** The size limit of the kind. */
  maxBytes: number;
}

// text/plain too: it is what a multipart part without Content-Type defaults to (RFC 7578), and
// the parser cannot tell the two apart. The bytes are checked against the extension all the same.
const UNDECLARED = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'text/plain']);

/** Why a declared type that is not media is refused, by type. */
function refusedTypeReason(type: string): string {
  if (type === 'image/svg+xml') {
    return 'SVG is not an accepted type (an SVG is a document that can carry scripts and links); upload PNG, JPEG, WebP or GIF';
  }
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'HTML documents are not accepted';
  if (type === 'application/pdf') return 'PDF documents are not accepted';
  if (/zip|x-tar|gzip|x-7z|x-rar|compressed/.test(type)) return 'archives are not accepted';
  if (/executable|x-msdownload|x-mach|x-elf|x-sh$|x-shellscript|javascript|ecmascript|x-python|x-php/.test(type)) {
    return 'executables and scripts are not accepted';
  }
  return `'${type}' is not an accepted media type (accepted: ${ACCEPTED_TYPES})`;
}

function formatOfType(type: string): MediaFormat | undefined {
  for (const [format, spec] of Object.entries(FORMATS) as Array<[MediaFormat, FormatSpec]>) {
    if (spec.contentType === type || spec.aliases.includes(type)) return format;
  }
  return undefined;
}

function formatOfExtension(ext: string): MediaFormat | undefined {
  for (const [format, spec] of Object.entries(FORMATS) as Array<[MediaFormat, FormatSpec]>) {
    if (spec.extensions.includes(ext)) return format;
  }
  return undefined;
}

/** The extension of a filename (lowercase, no dot), or undefined when it has none. */
function extensionOf(filename: string | undefined): string | undefined {
  const m = /\.([A-Za-z0-9]{1,10})$/.exec(filename ?? '');
  return m?.[1]?.toLowerCase();
}

/**
 * What the client says the file is: the part's Content-Type and the filename's extension must
 * name the same accepted format. `application/octet-stream` (or no type) leaves it to the
 * extension; a filename without extension leaves it to the type.
 */
export function declaredMedia(contentType: string | undefined, filename: string | undefined): DeclaredMedia {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const ext = extensionOf(filename);
  const byExt = ext === undefined ? undefined : formatOfExtension(ext);
  if (ext !== undefined && byExt === undefined) {
    if (ext === 'svg' || ext === 'svgz') return reject(refusedTypeReason('image/svg+xml'));
    if (['htm', 'html', 'xhtml', 'shtml'].includes(ext)) return reject(refusedTypeReason('text/html'));
  }
  let format: MediaFormat;
  if (UNDECLARED.has(type)) {
    if (ext !== undefined && byExt === undefined) {
      return reject(`'.${ext}' files are not accepted (accepted types: ${ACCEPTED_TYPES})`);
    }
    if (byExt === undefined) {
      return reject(
        'the file type is not declared: send the part with its Content-Type (one of ' +
          `${ACCEPTED_TYPES}) or a filename with its extension`,
      );
    }
    format = byExt;
  } else {
    const byType = formatOfType(type);
    if (byType === undefined) return reject(refusedTypeReason(type));
    if (ext !== undefined && !FORMATS[byType].extensions.includes(ext)) {
      return reject(`the filename extension '.${ext}' does not match the declared type ${type}`);
    }
    format = byType;
  }
  const spec = FORMATS[format];
  return { format, kind: spec.kind, contentType: spec.contentType, maxBytes: MEDIA_LIMITS[spec.kind].maxBytes };
}

function reject(reason: string): never {
  throw mediaRejected(reason);
}

// ---------------------------------------------------------------------------------------
// Signatures.

/** How many leading bytes the signature check wants before it decides (less only for smaller files). */
export const SIGNATURE_BYTES = 1024;

/** ISO base media (MP4, MOV, M4A) is one family: the streams inside tell video from audio. */
type Family = MediaFormat | 'isobmff';

const ISOBMFF: ReadonlySet<MediaFormat> = new Set(['mp4', 'mov', 'm4a']);

export type Sniffed = { family: Family } | { foreign: string };

const startsWith = (buf: Buffer, bytes: readonly number[], at = 0): boolean =>
  buf.length >= at + bytes.length && bytes.every((b, i) => buf[at + i] === b);

const ascii = (buf: Buffer, start: number, end: number): string =>
  buf.length >= end ? buf.toString('latin1', start, end) : '';

/** Image brands of the ISO base media format that are not video (HEIF, AVIF, JPEG 2000, ...). */
const IMAGE_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'mif1', 'msf1', 'avif', 'avis', 'crx ']);

/** Top-level boxes a QuickTime file without `ftyp` may start with. */
const QUICKTIME_FIRST_BOXES = new Set(['moov', 'mdat', 'wide', 'free', 'skip', 'pnot']);

/** A plausible MPEG audio frame header (MPEG 1/2/2.5, layers I-III) at `pos`. */
export function isMpegAudioFrame(buf: Buffer, pos: number): boolean {
  if (pos + 4 > buf.length) return false;
  const b1 = buf[pos + 1] as number;
  const b2 = buf[pos + 2] as number;
  return (
    buf[pos] === 0xff &&
    (b1 & 0xe0) === 0xe0 &&
    ((b1 >> 3) & 3) !== 1 && // reserved version
    ((b1 >> 1) & 3) !== 0 && // reserved layer (ADTS AAC uses it)
    b2 >> 4 !== 15 && // bad bitrate
    ((b2 >> 2) & 3) !== 3 // reserved sample rate
  );
}

/** The DocType of an EBML header at the start of `buf`, when it is there in full. */
export function ebmlDocType(buf: Buffer): string | undefined {
  const size = readVint(buf, 4);
  if (!size || size.value === null) return undefined;
  const end = Math.min(buf.length, 4 + size.length + size.value);
  let pos = 4 + size.length;
  while (pos < end) {
    const id = readVint(buf, pos, true);
    if (!id) return undefined;
    const len = readVint(buf, pos + id.length);
    if (!len || len.value === null) return undefined;
    const dataStart = pos + id.length + len.length;
    if (id.value === 0x4282) return buf.toString('latin1', dataStart, Math.min(end, dataStart + len.value));
    pos = dataStart + len.value;
  }
  return undefined;
}

/**
 * An EBML variable-length integer at `pos`: its value (null for the reserved "unknown size")
 * and its length in bytes. IDs keep their length marker (`keepMarker`), sizes do not.
 */
export function readVint(
  buf: Buffer,
  pos: number,
  keepMarker = false,
): { value: number | null; length: number } | undefined {
  const first = buf[pos];
  if (first === undefined || first === 0) return undefined;
  const length = Math.clz32(first) - 23;
  if (pos + length > buf.length) return undefined;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    const b = buf[pos + i] as number;
    value = value * 256 + b;
    allOnes &&= b === 0xff;
  }
  return { value: !keepMarker && allOnes ? null : value, length };
}

/** Identifies the bytes: one of the accepted families, something else we can name, or nothing known. */
export function sniff(head: Buffer): Sniffed | undefined {
  // Accepted media.
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { family: 'png' };
  if (startsWith(head, [0xff, 0xd8, 0xff])) return { family: 'jpeg' };
  if (ascii(head, 0, 6) === 'GIF87a' || ascii(head, 0, 6) === 'GIF89a') return { family: 'gif' };
  if (ascii(head, 0, 4) === 'RIFF') {
    const form = ascii(head, 8, 12);
    if (form === 'WEBP') return { family: 'webp' };
    if (form === 'WAVE') return { family: 'wav' };
    if (form === 'AVI ') return { foreign: 'an AVI video (not an accepted type)' };
    return { foreign: `a RIFF '${form.replace(/[^\x20-\x7e]/g, '?')}' file (not an accepted type)` };
  }
  const box = ascii(head, 4, 8);
  if (box === 'ftyp') {
    const brand = ascii(head, 8, 12);
    if (IMAGE_BRANDS.has(brand)) return { foreign: `a HEIF/AVIF image (brand '${brand.trim()}', not accepted)` };
    if (brand === 'jp2 ' || brand === 'jpx ') return { foreign: 'a JPEG 2000 image (not accepted)' };
    return { family: 'isobmff' };
  }
  if (QUICKTIME_FIRST_BOXES.has(box) && head.length >= 8 && head.readUInt32BE(0) >= 8) return { family: 'isobmff' };
  if (startsWith(head, [0x1a, 0x45, 0xdf, 0xa3])) {
    const docType = ebmlDocType(head);
    if (docType === undefined || docType === 'webm') return { family: 'webm' };
    if (docType === 'matroska') return { foreign: 'a Matroska (MKV) file (only WebM is accepted)' };
    return { foreign: `an EBML '${docType.replace(/[^\x20-\x7e]/g, '?')}' file (not an accepted type)` };
  }
  if (ascii(head, 0, 3) === 'ID3' || isMpegAudioFrame(head, 0)) return { family: 'mp3' };
  if (ascii(head, 0, 4) === 'OggS') return { family: 'ogg' };
  if (ascii(head, 0, 4) === 'fLaC') return { family: 'flac' };
  const foreign = sniffForeign(head);
  return foreign === undefined ? undefined : { foreign };
}

/** Names well-known non-media content: executables, documents, archives, markup, text. */
function sniffForeign(head: Buffer): string | undefined {
  if (startsWith(head, [0x7f, 0x45, 0x4c, 0x46])) return 'an ELF executable (executables are not accepted)';
  if (ascii(head, 0, 2) === 'MZ') return 'a Windows executable (MZ/PE; executables are not accepted)';
  for (const magic of [
    [0xfe, 0xed, 0xfa, 0xce],
    [0xfe, 0xed, 0xfa, 0xcf],
    [0xce, 0xfa, 0xed, 0xfe],
    [0xcf, 0xfa, 0xed, 0xfe],
  ]) {
    if (startsWith(head, magic)) return 'a Mach-O executable (executables are not accepted)';
  }
  if (startsWith(head, [0xca, 0xfe, 0xba, 0xbe])) {
    return 'a Mach-O universal binary or Java class file (executables are not accepted)';
  }
  if (startsWith(head, [0x00, 0x61, 0x73, 0x6d])) return 'a WebAssembly module (executables are not accepted)';
  if (ascii(head, 0, 2) === '#!') return 'a script (it starts with #!; scripts are not accepted)';
  if (ascii(head, 0, 5) === '%PDF-') return 'a PDF document (not accepted)';
  if (ascii(head, 0, 2) === 'PK' && [0x0304, 0x0506, 0x0708].includes(head.readUInt16BE(2))) {
    return 'a ZIP archive (archives are not accepted)';
  }
  if (startsWith(head, [0x1f, 0x8b])) return 'a gzip archive (archives are not accepted)';
  if (ascii(head, 0, 4) === 'Rar!') return 'a RAR archive (archives are not accepted)';
  if (startsWith(head, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return 'a 7-Zip archive (archives are not accepted)';
  if (startsWith(head, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00])) return 'an xz archive (archives are not accepted)';
  if (ascii(head, 0, 3) === 'BZh') return 'a bzip2 archive (archives are not accepted)';
  if (startsWith(head, [0xd0, 0xcf, 0x11, 0xe0]))
    return 'an OLE compound document (Office file or installer; not accepted)';
  if (ascii(head, 0, 4) === 'II*\0' || ascii(head, 0, 4) === 'MM\0*') return 'a TIFF image (not an accepted type)';
  if (ascii(head, 0, 4) === '8BPS') return 'a Photoshop document (not an accepted type)';
  if (ascii(head, 0, 3) === 'FLV') return 'an FLV video (not an accepted type)';
  if (startsWith(head, [0x30, 0x26, 0xb2, 0x75])) return 'an ASF (WMV/WMA) file (not an accepted type)';
  if (startsWith(head, [0x00, 0x00, 0x01, 0xba])) return 'an MPEG program stream (not an accepted type)';
  return sniffText(head);
}

/** Markup and other text: what a browser or a shell would treat as a document or a program. */
function sniffText(head: Buffer): string | undefined {
  let text = head.toString('latin1');
  text = text.replace(/^(?:\xef\xbb\xbf|\xfe\xff|\xff\xfe)/, '').trimStart();
  const lower = text.slice(0, SIGNATURE_BYTES).toLowerCase();
  if (lower.includes('<svg')) return 'an SVG image (SVG is not an accepted type: it can carry scripts)';
  if (/^<(?:!doctype html|html|head|body|script|iframe|meta|title|div|a |img|style|!--)/.test(lower)) {
    return 'an HTML document (not accepted)';
  }
  if (lower.startsWith('<?php')) return 'a PHP script (scripts are not accepted)';
  if (lower.startsWith('<?xml') || lower.startsWith('<')) return 'an XML or HTML document (not accepted)';
  if (text.length > 0 && isPlainText(text)) return 'a text file (not media)';
  return undefined;
}

/** No control characters other than tab, CR and LF. */
function isPlainText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0x7f) return false;
  }
  return true;
}

/**
 * Checks the leading bytes against the declared format; throws a 422 naming what the bytes are
 * when they are not that format.
 */
export function checkSignature(head: Buffer, declared: DeclaredMedia): void {
  if (head.length === 0) reject('the file is empty');
  const sniffed = sniff(head);
  const label = FORMATS[declared.format].label;
  if (sniffed === undefined) {
    reject(`declared ${declared.contentType} but the bytes are not ${label} (no known media signature)`);
  }
  if ('foreign' in sniffed) reject(`declared ${declared.contentType} but the bytes are ${sniffed.foreign}`);
  const matches = sniffed.family === 'isobmff' ? ISOBMFF.has(declared.format) : sniffed.family === declared.format;
  if (!matches) {
    const actual = sniffed.family === 'isobmff' ? 'an MP4/QuickTime file' : FORMATS[sniffed.family].label;
    reject(`declared ${declared.contentType} but the bytes are ${actual}`);
  }
}

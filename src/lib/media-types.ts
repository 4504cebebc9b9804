// The media the service keeps, by file extension: what storage serves a key as, and what a
// vendor's file name says it is.

/** Extension → the content type of files of that kind (what the service stores and serves). */
export const MEDIA_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  m4a: 'audio/mp4',
  flac: 'audio/flac',
  aac: 'audio/aac',
  /** Raw signed 16-bit little-endian mono at 22 050 Hz (text to speech's `pcm`). */
  pcm: 'audio/pcm',
  glb: 'model/gltf-binary',
  json: 'application/json',
  txt: 'text/plain; charset=utf-8',
  /** LoRA weights a request names, kept as a copy of its input. */
  safetensors: 'application/octet-stream',
};

/** The content type of a file name's extension (`.glb` → model/gltf-binary), when it is one we keep. */
export function contentTypeForFileName(name: string): string | undefined {
  const dot = name.lastIndexOf('.');
  const ext = dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
  return Object.hasOwn(MEDIA_TYPES, ext) ? MEDIA_TYPES[ext] : undefined;
}

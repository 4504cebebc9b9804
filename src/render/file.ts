// What the renderers make: one file, as bytes, with what is known of it.

/** A rendered file: its bytes and type, and its size or length where it has one. */
export interface RenderedFile {
  data: Buffer;
  contentType: string;
  /** File extension without the dot: png, mp4, mp3, glb, txt. */
  extension: string;
  width?: number;
  height?: number;
  durationSeconds?: number;
}

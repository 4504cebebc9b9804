import sharp from 'sharp';

/** What the analysis of one reference image found. */
export interface ImageAnalysis {
  index: number;
  width: number;
  height: number;
  format: string;
  orientation: 'portrait' | 'landscape' | 'square';
  /** Share of the frame's height the subject spans (the part that differs from the border colour). */
  subject_height: number;
  /** Share of the frame's width the subject spans. */
  subject_width: number;
  framing: 'full_body' | 'half_body' | 'close_up';
  pose: 'standing' | 'seated_or_cropped' | 'portrait';
  /** Mean brightness 0-255 and the dominant colour, for content. */
  brightness: number;
  dominant_color: string;
  /** Laplacian energy: higher is sharper. */
  sharpness: number;
  score: number;
}

const hex = (r: number, g: number, b: number) =>
  `#${[r, g, b].map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;

/**
 * Analyses one decoded image: orientation and size; the subject's extent (what differs from the
 * border colour, found with sharp's trim); framing and pose derived from it; brightness,
 * dominant colour and sharpness. Throws when the bytes are not an image.
 */
export async function analyseImage(index: number, data: Buffer): Promise<ImageAnalysis> {
  const image = sharp(data, { limitInputPixels: 100_000_000 }).rotate();
  const meta = await image.metadata();
  const width = meta.autoOrient?.width ?? meta.width ?? 0;
  const height = meta.autoOrient?.height ?? meta.height ?? 0;
  if (!width || !height) throw new Error('no dimensions');
  // Work on a small copy: the analysis needs shapes, not detail.
  const small = await image
    .clone()
    .resize(256, 256, { fit: 'inside' })
    .flatten({ background: '#ffffff' })
    .png()
    .toBuffer();
  const trimmed = await sharp(small)
    .trim({ threshold: 30 })
    .toBuffer({ resolveWithObject: true })
    .catch(() => undefined);
  const smallMeta = await sharp(small).metadata();
  const sw = smallMeta.width ?? 1;
  const sh = smallMeta.height ?? 1;
  const subjectHeight = trimmed ? trimmed.info.height / sh : 1;
  const subjectWidth = trimmed ? trimmed.info.width / sw : 1;
  const stats = await sharp(small).stats();
  const [r, g, b] = stats.channels;
  const brightness = ((r?.mean ?? 0) + (g?.mean ?? 0) + (b?.mean ?? 0)) / 3;
  const edges = await sharp(small)
    .greyscale()
    .convolve({ width: 3, height: 3, kernel: [0, 1, 0, 1, -4, 1, 0, 1, 0] })
    .stats();
  const sharpness = edges.channels[0]?.stdev ?? 0;

  const ratio = height / width;
  const orientation = ratio > 1.1 ? 'portrait' : ratio < 0.9 ? 'landscape' : 'square';
  const subjectRatio = (subjectHeight * height) / Math.max(1, subjectWidth * width);
  const framing =
    orientation === 'portrait' && subjectHeight >= 0.8 && subjectRatio >= 1.6
      ? 'full_body'
      : subjectHeight >= 0.6 && subjectRatio >= 1.1
        ? 'half_body'
        : 'close_up';
  const pose = framing === 'full_body' ? 'standing' : framing === 'half_body' ? 'seated_or_cropped' : 'portrait';
  const megapixels = (width * height) / 1_000_000;
  // The best full-body image rule (documented in the API reference): framing first, then a tall
  // subject, a portrait frame, resolution and sharpness.
  const score =
    (framing === 'full_body' ? 100 : framing === 'half_body' ? 50 : 0) +
    20 * Math.min(1, subjectHeight) +
    (orientation === 'portrait' ? 10 : 0) +
    5 * Math.min(4, megapixels) +
    Math.min(10, sharpness / 5);
  const d = stats.dominant;
  return {
    index,
    width,
    height,
    format: meta.format ?? 'unknown',
    orientation,
    subject_height: Number(subjectHeight.toFixed(3)),
    subject_width: Number(subjectWidth.toFixed(3)),
    framing,
    pose,
    brightness: Math.round(brightness),
    dominant_color: hex(d.r, d.g, d.b),
    sharpness: Number(sharpness.toFixed(2)),
    score: Number(score.toFixed(2)),
  };
}

/** The image chosen as best full-body: the highest score, the earliest on a tie. */
export function bestFullBody(analyses: ImageAnalysis[]): ImageAnalysis {
  return analyses.reduce((best, a) => (a.score > best.score ? a : best));
}

const FIRST = [
  'Ava',
  'Leo',
  'Mia',
  'Noah',
  'Zara',
  'Kai',
  'Luna',
  'Milo',
  'Iris',
  'Ezra',
  'Nina',
  'Theo',
  'Sofia',
  'Jude',
  'Cleo',
  'Remy',
];
const LAST = [
  'Rivers',
  'Hart',
  'Vale',
  'Stone',
  'Quinn',
  'Blake',
  'Frost',
  'Lane',
  'Reyes',
  'Wilde',
  'Moreau',
  'Sato',
  'Park',
  'Costa',
  'Novak',
  'Ellis',
];

/** A readable name (first and last) not yet used in the team; a number is added when all are taken. */
export function generateName(taken: Set<string>, seed: number): string {
  const total = FIRST.length * LAST.length;
  for (let i = 0; i < total; i++) {
    const n = (seed + i * 7919) % total;
    const name = `${FIRST[n % FIRST.length]} ${LAST[Math.floor(n / FIRST.length)]}`;
    if (!taken.has(name.toLowerCase())) return name;
  }
  for (let i = 2; ; i++) {
    const name = `${FIRST[seed % FIRST.length]} ${LAST[seed % LAST.length]} ${i}`;
    if (!taken.has(name.toLowerCase())) return name;
  }
}

// Deterministic image rendering for the simulator provider. Every output is a real PNG of
// the requested size, a pure function of (prompt, negative prompt, seed, size, model,
// steps, variant, reference bytes), and visibly tied to the prompt: colour words steer
// the palette, the negative prompt removes shapes and colours, and the model picks a
// consistent drawing style. Pictures are painted in JavaScript at a small working size
// (its long side grows with `steps`) and scaled up by libvips with a smooth kernel, which
// keeps a 1024x1024 render in the tens of milliseconds and needs no fonts.
import sharp, { type OverlayOptions, type Sharp } from 'sharp';
import { MAX_SIDE, MIN_SIDE } from '../catalog/image-sizes.ts';
import { WorkError } from '../lib/errors.ts';
import type { RenderedFile } from './file.ts';
import { Rng, sha256 } from './random.ts';

export interface ImageRenderRequest {
  prompt: string;
  negativePrompt?: string;
  /** Integer; same inputs + seed → byte-identical PNG. */
  seed: number;
  /** 64..4096 */
  width: number;
  height: number;
  /** Model id; part of the determinism key (different models render differently). */
  model: string;
  /** More steps → finer detail; part of the key. */
  steps?: number;
  /** Decoded reference images (already fetched by the caller): image-to-image and edits derive the result from them. */
  references?: Buffer[];
  /** Optional extra inputs that change the result (e.g. lora url/type, style, a face image for influencer composition). */
  variant?: string;
}

const DEFAULT_STEPS = 28;
/** Bumped whenever the rendering changes, so old and new outputs never share a key by accident. */
const RENDER_VERSION = 'sim-image-v1';
const PNG_OPTIONS = { compressionLevel: 3, adaptiveFiltering: false } as const;

// ---------------------------------------------------------------------------------------
// Determinism: per-word hues (hashing and the seeded PRNG are in random.ts).

/** 32-bit FNV-1a, for stable per-word hues. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

// ---------------------------------------------------------------------------------------
// Colour.

interface Hsl {
  h: number; // degrees
  s: number; // 0..1
  l: number; // 0..1
}
type Rgb = [number, number, number]; // 0..1 each

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

function hslToRgb({ h, s, l }: Hsl): Rgb {
  const hue = (((h % 360) + 360) % 360) / 60;
  const c = (1 - Math.abs(2 * l - 1)) * s;
  const x = c * (1 - Math.abs((hue % 2) - 1));
  const m = l - c / 2;
  const sector = Math.floor(hue);
  const [r, g, b] =
    sector === 0
      ? [c, x, 0]
      : sector === 1
        ? [x, c, 0]
        : sector === 2
          ? [0, c, x]
          : sector === 3
            ? [0, x, c]
            : sector === 4
              ? [x, 0, c]
              : [c, 0, x];
  return [r + m, g + m, b + m];
}

function luminance([r, g, b]: Rgb): number {
  return 0.299 * r + 0.587 * g + 0.114 * b;
}

function hueDistance(a: number, b: number): number {
  const d = Math.abs((((a - b) % 360) + 360) % 360);
  return d > 180 ? 360 - d : d;
}

/** A colour word: one or more hues with a typical saturation and lightness. */
interface ColourWord {
  hues: number[];
  s: number;
  l: number;
}

const COLOUR_WORDS = new Map<string, ColourWord>(
  Object.entries({
    red: { hues: [0], s: 0.85, l: 0.48 },
    crimson: { hues: [350], s: 0.8, l: 0.4 },
    scarlet: { hues: [5], s: 0.9, l: 0.48 },
    cherry: { hues: [350], s: 0.8, l: 0.45 },
    ruby: { hues: [345], s: 0.8, l: 0.4 },
    blood: { hues: [358], s: 0.85, l: 0.32 },
    fire: { hues: [8, 28, 45], s: 0.95, l: 0.5 },
    flame: { hues: [10, 30], s: 0.95, l: 0.5 },
    lava: { hues: [5, 18], s: 0.95, l: 0.42 },
    orange: { hues: [28], s: 0.9, l: 0.52 },
    amber: { hues: [40], s: 0.9, l: 0.5 },
    autumn: { hues: [25, 40, 8], s: 0.75, l: 0.45 },
    gold: { hues: [45], s: 0.85, l: 0.52 },
    golden: { hues: [45], s: 0.85, l: 0.55 },
    yellow: { hues: [55], s: 0.9, l: 0.55 },
    lemon: { hues: [58], s: 0.9, l: 0.6 },
    sun: { hues: [48, 35], s: 0.95, l: 0.6 },
    sunny: { hues: [50, 200], s: 0.85, l: 0.62 },
    sunset: { hues: [22, 345, 280, 38], s: 0.85, l: 0.52 },
    sunrise: { hues: [35, 15, 200], s: 0.8, l: 0.6 },
    desert: { hues: [38, 28], s: 0.55, l: 0.62 },
    sand: { hues: [40], s: 0.5, l: 0.7 },
    brown: { hues: [25], s: 0.55, l: 0.32 },
    wood: { hues: [28], s: 0.55, l: 0.35 },
    earth: { hues: [30, 90], s: 0.45, l: 0.35 },
    green: { hues: [120], s: 0.75, l: 0.42 },
    lime: { hues: [90], s: 0.85, l: 0.5 },
    grass: { hues: [100], s: 0.7, l: 0.42 },
    leaf: { hues: [110], s: 0.7, l: 0.4 },
    leaves: { hues: [110, 80], s: 0.7, l: 0.4 },
    tree: { hues: [120, 28], s: 0.6, l: 0.35 },
    trees: { hues: [120, 28], s: 0.6, l: 0.35 },
    forest: { hues: [130, 100, 150], s: 0.65, l: 0.28 },
    jungle: { hues: [125, 95], s: 0.75, l: 0.32 },
    emerald: { hues: [145], s: 0.75, l: 0.4 },
    mint: { hues: [155], s: 0.55, l: 0.7 },
    teal: { hues: [178], s: 0.7, l: 0.38 },
    cyan: { hues: [185], s: 0.85, l: 0.5 },
    turquoise: { hues: [175], s: 0.7, l: 0.5 },
    aqua: { hues: [185], s: 0.75, l: 0.55 },
    water: { hues: [200, 190], s: 0.65, l: 0.45 },
    sea: { hues: [200, 185], s: 0.7, l: 0.42 },
    ocean: { hues: [205, 190, 220], s: 0.75, l: 0.4 },
    wave: { hues: [195, 210], s: 0.7, l: 0.5 },
    waves: { hues: [195, 210], s: 0.7, l: 0.5 },
    river: { hues: [200, 120], s: 0.6, l: 0.45 },
    lake: { hues: [205, 130], s: 0.6, l: 0.42 },
    rain: { hues: [210], s: 0.3, l: 0.45 },
    sky: { hues: [205], s: 0.7, l: 0.65 },
    azure: { hues: [210], s: 0.8, l: 0.55 },
    blue: { hues: [222], s: 0.85, l: 0.48 },
    navy: { hues: [230], s: 0.7, l: 0.25 },
    cobalt: { hues: [225], s: 0.85, l: 0.4 },
    ice: { hues: [195], s: 0.45, l: 0.8 },
    snow: { hues: [205], s: 0.2, l: 0.88 },
    winter: { hues: [205, 220], s: 0.3, l: 0.78 },
    cloud: { hues: [210], s: 0.15, l: 0.82 },
    clouds: { hues: [210], s: 0.15, l: 0.82 },
    storm: { hues: [220, 260], s: 0.2, l: 0.3 },
    mountain: { hues: [215, 120], s: 0.25, l: 0.45 },
    mountains: { hues: [215, 120], s: 0.25, l: 0.45 },
    indigo: { hues: [250], s: 0.7, l: 0.35 },
    night: { hues: [235, 260], s: 0.6, l: 0.2 },
    midnight: { hues: [240], s: 0.65, l: 0.15 },
    moon: { hues: [220, 50], s: 0.25, l: 0.75 },
    space: { hues: [250, 280], s: 0.55, l: 0.15 },
    galaxy: { hues: [270, 300, 220], s: 0.7, l: 0.3 },
    purple: { hues: [275], s: 0.7, l: 0.45 },
    violet: { hues: [270], s: 0.75, l: 0.5 },
    lavender: { hues: [265], s: 0.5, l: 0.75 },
    magenta: { hues: [305], s: 0.85, l: 0.5 },
    pink: { hues: [330], s: 0.75, l: 0.72 },
    rose: { hues: [340], s: 0.65, l: 0.6 },
    blossom: { hues: [330, 110], s: 0.6, l: 0.75 },
    flower: { hues: [320, 50, 110], s: 0.75, l: 0.6 },
    flowers: { hues: [320, 50, 110], s: 0.75, l: 0.6 },
    neon: { hues: [300, 180, 90], s: 1, l: 0.55 },
    cyberpunk: { hues: [310, 185, 260], s: 0.95, l: 0.45 },
    white: { hues: [40], s: 0.05, l: 0.92 },
    black: { hues: [230], s: 0.1, l: 0.08 },
    grey: { hues: [210], s: 0.05, l: 0.5 },
    gray: { hues: [210], s: 0.05, l: 0.5 },
    silver: { hues: [210], s: 0.08, l: 0.72 },
  }),
);

/** Words that shift lightness or saturation of the whole palette. */
const TONE_WORDS = new Map<string, { l?: number; s?: number }>(
  Object.entries({
    dark: { l: -0.18 },
    shadow: { l: -0.15 },
    shadows: { l: -0.15 },
    night: { l: -0.15 },
    midnight: { l: -0.2 },
    noir: { l: -0.2, s: 0.2 },
    gloomy: { l: -0.12, s: 0.6 },
    bright: { l: 0.12, s: 1.15 },
    light: { l: 0.12 },
    sunny: { l: 0.1 },
    day: { l: 0.08 },
    pastel: { l: 0.18, s: 0.6 },
    vivid: { s: 1.3 },
    vibrant: { s: 1.3 },
    neon: { s: 1.3 },
    muted: { s: 0.5 },
    faded: { s: 0.45, l: 0.08 },
    grey: { s: 0.3 },
    gray: { s: 0.3 },
    monochrome: { s: 0.05 },
    vintage: { s: 0.6 },
  }),
);

// ---------------------------------------------------------------------------------------
// Scene description.

type ShapeKind = 'circle' | 'rect' | 'ring' | 'stripes';
const SHAPE_KINDS: readonly ShapeKind[] = ['circle', 'rect', 'ring', 'stripes'];
const SHAPE_WORDS = new Map<string, ShapeKind>(
  Object.entries({
    circle: 'circle',
    circles: 'circle',
    dot: 'circle',
    dots: 'circle',
    bubble: 'circle',
    bubbles: 'circle',
    ball: 'circle',
    balls: 'circle',
    square: 'rect',
    squares: 'rect',
    box: 'rect',
    boxes: 'rect',
    block: 'rect',
    blocks: 'rect',
    building: 'rect',
    buildings: 'rect',
    city: 'rect',
    ring: 'ring',
    rings: 'ring',
    planet: 'ring',
    planets: 'ring',
    eye: 'ring',
    eyes: 'ring',
    stripe: 'stripes',
    stripes: 'stripes',
    striped: 'stripes',
    line: 'stripes',
    lines: 'stripes',
    wave: 'stripes',
    waves: 'stripes',
    rain: 'stripes',
  }),
);

/** A model's drawing style: how likely each shape kind is, edge softness, shape count. */
interface Style {
  kindWeights: [number, number, number, number];
  /** Edge width as a fraction of a shape's size (0 → crisp). */
  softness: number;
  count: number;
  sizeScale: number;
}

const STYLES: readonly Style[] = [
  { kindWeights: [5, 1, 1, 1], softness: 0.22, count: 10, sizeScale: 1.2 }, // soft blobs
  { kindWeights: [2, 5, 1, 1], softness: 0, count: 12, sizeScale: 1 }, // geometric
  { kindWeights: [1, 1, 3, 4], softness: 0.04, count: 9, sizeScale: 1.1 }, // bands and rings
  { kindWeights: [6, 0, 2, 0], softness: 0.12, count: 26, sizeScale: 0.5 }, // bokeh
];

interface Shape {
  kind: ShapeKind;
  x: number; // centre, working pixels
  y: number;
  size: number; // radius or half-extent, working pixels
  aspect: number; // rect: half-height / half-width; ring: thickness / radius; stripes: duty cycle
  angle: number; // radians
  period: number; // stripes: spacing in working pixels
  colour: Rgb;
  alpha: number;
  softness: number; // edge width in working pixels
}

interface Scene {
  palette: Rgb[];
  gradientAngle: number;
  glow: { x: number; y: number; radius: number; colour: Rgb; strength: number };
  waves: Array<{ fx: number; fy: number; phase: number; amplitude: number }>;
  shapes: Shape[];
}

/** Lower-case words of any script. */
function tokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function buildPalette(req: NormalizedRequest, rng: Rng, negative: Rng): Rgb[] {
  const words = tokens(req.prompt);
  const anchors: Array<{ h: number; s: number; l: number; w: number }> = [];
  for (const word of words) {
    const entry = COLOUR_WORDS.get(word);
    if (!entry) continue;
    entry.hues.forEach((h, i) => {
      anchors.push({ h, s: entry.s, l: entry.l, w: 3 / (i + 1) });
    });
  }
  const hasColourWords = anchors.length > 0;
  for (const word of words) {
    // Short Latin words (a, of, in) say little about colour.
    if (COLOUR_WORDS.has(word) || /^[a-z0-9]{1,2}$/.test(word)) continue;
    const h = fnv1a(word);
    anchors.push({
      h: h % 360,
      s: 0.45 + ((h >>> 9) % 40) / 100,
      l: 0.4 + ((h >>> 17) % 25) / 100,
      w: hasColourWords ? 0.35 : 1,
    });
  }
  // A prompt without usable words still gets a seed-dependent palette.
  if (anchors.length === 0) anchors.push({ h: rng.range(0, 360), s: 0.6, l: 0.5, w: 1 });

  let lightShift = 0;
  let satScale = 1;
  for (const word of words) {
    const tone = TONE_WORDS.get(word);
    if (tone?.l) lightShift += tone.l;
    if (tone?.s) satScale *= tone.s;
  }
  lightShift = clamp(lightShift, -0.3, 0.3);
  // Variant inputs (a LoRA, a style) nudge the hues a little.
  const variantShift = req.variant ? (fnv1a(req.variant) % 41) - 20 : 0;

  // Negative prompt: colour words there push matching hues to the opposite side of the wheel,
  // and any negative prompt mutes the palette.
  const avoid = tokens(req.negativePrompt).flatMap((w) => COLOUR_WORDS.get(w)?.hues ?? []);
  if (req.negativePrompt.trim()) satScale *= 0.55;

  // Five colours from darkest background to bright accents.
  const levels = [-0.2, -0.05, 0.1, 0.02, 0.22];
  const weights = anchors.map((a) => a.w);
  return levels.map((level) => {
    const a = anchors[rng.weighted(weights)] ?? { h: 0, s: 0.5, l: 0.5, w: 1 };
    let h = a.h + rng.range(-12, 12) + variantShift;
    if (avoid.some((bad) => hueDistance(h, bad) < 50)) h += 180 + negative.range(-20, 20);
    const s = clamp(a.s * satScale * rng.range(0.85, 1.1), 0, 1);
    const l = clamp(a.l + level + lightShift + rng.range(-0.05, 0.05), 0.04, 0.95);
    return hslToRgb({ h, s, l });
  });
}

function buildScene(req: NormalizedRequest, width: number, height: number, detail: number): Scene {
  // Layout comes from every input except the negative prompt, so adding a negative prompt keeps
  // the composition and visibly removes shapes and colours from it (a second stream decides which).
  const rng = new Rng(sha256(JSON.stringify([RENDER_VERSION, 'layout', req.layoutKey])));
  const negative = new Rng(sha256(JSON.stringify([RENDER_VERSION, 'negative', req.layoutKey, req.negativePrompt])));
  const palette = buildPalette(req, rng, negative);
  const style = STYLES[fnv1a(req.model) % STYLES.length] ?? (STYLES[0] as Style);
  const minSide = Math.min(width, height);

  const words = tokens(req.prompt);
  const kindWeights = [...style.kindWeights];
  for (const word of words) {
    const kind = SHAPE_WORDS.get(word);
    if (kind) kindWeights[SHAPE_KINDS.indexOf(kind)] = (kindWeights[SHAPE_KINDS.indexOf(kind)] ?? 0) + 6;
  }
  const negativeWords = tokens(req.negativePrompt);
  const banned = new Set(negativeWords.map((w) => SHAPE_WORDS.get(w)).filter((k) => k !== undefined));

  let count = style.count + Math.min(words.length, 12) + Math.round(detail * 6);
  if (words.some((w) => w === 'minimal' || w === 'minimalist' || w === 'simple' || w === 'empty')) count = 3;
  if (words.some((w) => w === 'busy' || w === 'complex' || w === 'detailed' || w === 'chaos' || w === 'crowd'))
    count *= 2;
  // Any negative prompt removes about 40% of the shapes.
  const dropRate = req.negativePrompt.trim() ? 0.4 : 0;

  const shapes: Shape[] = [];
  for (let i = 0; i < count; i++) {
    const kind = SHAPE_KINDS[rng.weighted(kindWeights)] ?? 'circle';
    // Shapes painted later are smaller, so big forms sit behind small details.
    const progress = i / Math.max(1, count - 1);
    const size = minSide * style.sizeScale * rng.range(0.06, 0.3) * (1.2 - 0.7 * progress);
    const colour = palette[1 + rng.int(palette.length - 1)] ?? [0.5, 0.5, 0.5];
    const shape: Shape = {
      kind,
      x: rng.range(-0.1, 1.1) * width,
      y: rng.range(-0.1, 1.1) * height,
      size,
      aspect: kind === 'rect' ? rng.range(0.3, 1.6) : kind === 'ring' ? rng.range(0.12, 0.35) : rng.range(0.3, 0.6),
      angle: kind === 'rect' && style.softness === 0 && rng.next() < 0.5 ? 0 : rng.range(0, Math.PI),
      period: Math.max(2.5, size * rng.range(0.12, 0.35) * (1.3 - 0.6 * detail)),
      colour,
      alpha: rng.range(0.55, 0.95),
      softness: Math.max(0.75, size * style.softness),
    };
    if (kind === 'stripes') shape.size = size * 1.8;
    // Draw the removal decision unconditionally so the stream stays aligned across shapes.
    const removed = negative.next() < dropRate || banned.has(kind);
    if (!removed) shapes.push(shape);
  }

  const octaves = 1 + Math.round(detail * 3);
  const waves = [];
  for (let i = 0; i < octaves; i++) {
    const freq = ((2 * Math.PI) / minSide) * rng.range(0.6, 1.6) * 2 ** i;
    const theta = rng.range(0, 2 * Math.PI);
    waves.push({
      fx: freq * Math.cos(theta),
      fy: freq * Math.sin(theta),
      phase: rng.range(0, 2 * Math.PI),
      amplitude: 0.07 / (1 + i * 0.6),
    });
  }

  return {
    palette,
    gradientAngle: rng.range(0, 2 * Math.PI),
    glow: {
      x: rng.range(0.15, 0.85) * width,
      y: rng.range(0.15, 0.85) * height,
      radius: minSide * rng.range(0.35, 0.8),
      colour: palette[4] ?? [1, 1, 1],
      strength: rng.range(0.35, 0.7),
    },
    waves,
    shapes,
  };
}

// ---------------------------------------------------------------------------------------
// Painting into a premultiplied RGBA float buffer at the working size.

function paintBackground(scene: Scene, buf: Float32Array, width: number, height: number): void {
  const c0 = scene.palette[0] ?? [0, 0, 0];
  const c1 = scene.palette[1] ?? [0.5, 0.5, 0.5];
  const dx = Math.cos(scene.gradientAngle);
  const dy = Math.sin(scene.gradientAngle);
  const half = (Math.abs(dx) * width + Math.abs(dy) * height) / 2;
  const { glow, waves } = scene;
  const invGlow = 1 / (glow.radius * glow.radius);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const t = clamp(0.5 + ((x - width / 2) * dx + (y - height / 2) * dy) / (2 * half), 0, 1);
      let r = c0[0] + (c1[0] - c0[0]) * t;
      let g = c0[1] + (c1[1] - c0[1]) * t;
      let b = c0[2] + (c1[2] - c0[2]) * t;
      const gx = x - glow.x;
      const gy = y - glow.y;
      const k = glow.strength * Math.exp(-(gx * gx + gy * gy) * invGlow * 2.5);
      r += (glow.colour[0] - r) * k;
      g += (glow.colour[1] - g) * k;
      b += (glow.colour[2] - b) * k;
      let w = 0;
      for (const wave of waves) w += wave.amplitude * Math.sin(x * wave.fx + y * wave.fy + wave.phase);
      const i = (y * width + x) * 4;
      buf[i] = r + w;
      buf[i + 1] = g + w;
      buf[i + 2] = b + w;
      buf[i + 3] = 1;
    }
  }
}

/** Signed distance from (px, py) to the shape's outline: negative inside. */
function distance(s: Shape, px: number, py: number, cos: number, sin: number): number {
  const dx = px - s.x;
  const dy = py - s.y;
  switch (s.kind) {
    case 'circle':
      return Math.sqrt(dx * dx + dy * dy) - s.size;
    case 'ring':
      return Math.abs(Math.sqrt(dx * dx + dy * dy) - s.size) - s.size * s.aspect;
    case 'rect': {
      const qx = dx * cos + dy * sin;
      const qy = -dx * sin + dy * cos;
      return Math.max(Math.abs(qx) - s.size, Math.abs(qy) - s.size * s.aspect);
    }
    case 'stripes': {
      const qx = dx * cos + dy * sin;
      const qy = -dx * sin + dy * cos;
      const m = ((qx % s.period) + s.period) % s.period;
      const stripe = Math.abs(m - s.period / 2) - (s.period * s.aspect) / 2;
      return Math.max(stripe, Math.abs(qy) - s.size * 0.45, Math.abs(qx) - s.size);
    }
  }
}

function paintShape(s: Shape, buf: Float32Array, width: number, height: number): void {
  const reach = s.kind === 'rect' ? s.size * Math.max(1, s.aspect) * 1.42 : s.size * (1 + s.aspect);
  const x0 = Math.max(0, Math.floor(s.x - reach - s.softness));
  const x1 = Math.min(width - 1, Math.ceil(s.x + reach + s.softness));
  const y0 = Math.max(0, Math.floor(s.y - reach - s.softness));
  const y1 = Math.min(height - 1, Math.ceil(s.y + reach + s.softness));
  const cos = Math.cos(s.angle);
  const sin = Math.sin(s.angle);
  const [cr, cg, cb] = s.colour;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const coverage = clamp(0.5 - distance(s, x + 0.5, y + 0.5, cos, sin) / s.softness, 0, 1);
      if (coverage === 0) continue;
      const a = coverage * s.alpha;
      const i = (y * width + x) * 4;
      const keep = 1 - a;
      buf[i] = cr * a + (buf[i] ?? 0) * keep;
      buf[i + 1] = cg * a + (buf[i + 1] ?? 0) * keep;
      buf[i + 2] = cb * a + (buf[i + 2] ?? 0) * keep;
      buf[i + 3] = a + (buf[i + 3] ?? 0) * keep;
    }
  }
}

/** Working size: the long side grows with steps (more steps → finer detail), never above the output. */
function workingSize(req: NormalizedRequest): { width: number; height: number; detail: number } {
  const detail = clamp((req.steps - 1) / 49, 0, 1);
  const long = Math.min(Math.max(req.width, req.height), Math.round(96 + 224 * detail));
  const scale = long / Math.max(req.width, req.height);
  return {
    width: Math.max(8, Math.round(req.width * scale)),
    height: Math.max(8, Math.round(req.height * scale)),
    detail,
  };
}

interface Canvas {
  width: number;
  height: number;
  scene: Scene;
}

/** Lays out the scene at working size without painting it (cheap: palette and shapes only). */
function layout(req: NormalizedRequest): Canvas {
  const { width, height, detail } = workingSize(req);
  return { width, height, scene: buildScene(req, width, height, detail) };
}

/** Paints a laid-out scene as 8-bit RGB (with background) or RGBA (shapes only, alpha scaled by `opacity`). */
function paint({ width, height, scene }: Canvas, withBackground: boolean, opacity = 1): Buffer {
  const buf = new Float32Array(width * height * 4);
  if (withBackground) paintBackground(scene, buf, width, height);
  for (const shape of scene.shapes) paintShape(shape, buf, width, height);
  const channels = withBackground ? 3 : 4;
  const out = Buffer.alloc(width * height * channels);
  for (let p = 0, i = 0, o = 0; p < width * height; p++, i += 4, o += channels) {
    const a = buf[i + 3] ?? 0;
    // Stored premultiplied; with a background alpha is 1, for the overlay we un-premultiply.
    const inv = withBackground || a === 0 ? 1 : 1 / a;
    out[o] = Math.round(clamp((buf[i] ?? 0) * inv, 0, 1) * 255);
    out[o + 1] = Math.round(clamp((buf[i + 1] ?? 0) * inv, 0, 1) * 255);
    out[o + 2] = Math.round(clamp((buf[i + 2] ?? 0) * inv, 0, 1) * 255);
    if (!withBackground) out[o + 3] = Math.round(clamp(a * opacity, 0, 1) * 255);
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Requests.

interface NormalizedRequest {
  prompt: string;
  negativePrompt: string;
  seed: number;
  width: number;
  height: number;
  model: string;
  steps: number;
  variant: string;
  references: Buffer[];
  /**
   * Canonical JSON of every input except the negative prompt (references by SHA-256): it seeds
   * the layout, and the negative prompt then edits that layout through its own stream.
   */
  layoutKey: string;
}

function normalize(req: ImageRenderRequest): NormalizedRequest {
  for (const side of ['width', 'height'] as const) {
    const v = req[side];
    if (!Number.isInteger(v) || v < MIN_SIDE || v > MAX_SIDE) {
      throw new WorkError(`${side} must be an integer from ${MIN_SIDE} to ${MAX_SIDE}, got ${v}`, false);
    }
  }
  if (!Number.isFinite(req.seed)) throw new WorkError(`seed must be a finite number, got ${req.seed}`, false);
  const steps =
    req.steps === undefined || !Number.isFinite(req.steps) ? DEFAULT_STEPS : clamp(Math.round(req.steps), 1, 1000);
  const references = req.references ?? [];
  const base = {
    prompt: req.prompt,
    negativePrompt: req.negativePrompt ?? '',
    seed: req.seed,
    width: req.width,
    height: req.height,
    model: req.model,
    steps,
    variant: req.variant ?? '',
    references,
  };
  const layoutKey = JSON.stringify([
    RENDER_VERSION,
    base.prompt,
    base.seed,
    base.width,
    base.height,
    base.model,
    base.steps,
    base.variant,
    references.map((r) => sha256(r).toString('hex')),
  ]);
  return { ...base, layoutKey };
}

async function encodePng(image: Sharp, width: number, height: number): Promise<RenderedFile> {
  const data = await image.png(PNG_OPTIONS).toBuffer();
  return { data, contentType: 'image/png', extension: 'png', width, height };
}

/** Decodes reference `index` (0-based) to raw sRGB at exactly width x height, cover-cropped. */
async function decodeReference(
  ref: Buffer,
  index: number,
  width: number,
  height: number,
  background: Rgb,
): Promise<Buffer> {
  try {
    const { data, info } = await sharp(ref, { failOn: 'error' })
      .autoOrient()
      .resize(width, height, { fit: 'cover', position: 'centre', kernel: 'lanczos3' })
      .flatten({ background: { r: background[0] * 255, g: background[1] * 255, b: background[2] * 255 } })
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.width !== width || info.height !== height || data.length !== width * height * 3) {
      throw new Error('unexpected pixel layout');
    }
    return data;
  } catch {
    throw new WorkError(`reference image ${index + 1} could not be decoded`, false);
  }
}

/** Mean colour (0..1 per channel) of raw RGB images. */
function averageColour(images: Buffer[]): Rgb {
  let r = 0;
  let g = 0;
  let b = 0;
  let pixels = 0;
  for (const data of images) {
    for (let i = 0; i + 2 < data.length; i += 3) {
      r += data[i] ?? 0;
      g += data[i + 1] ?? 0;
      b += data[i + 2] ?? 0;
    }
    pixels += data.length / 3;
  }
  const scale = 1 / (255 * Math.max(1, pixels));
  return [r * scale, g * scale, b * scale];
}

async function renderFromReferences(req: NormalizedRequest): Promise<RenderedFile> {
  const { width, height } = req;
  const rng = new Rng(sha256(JSON.stringify([RENDER_VERSION, 'edit', req.layoutKey, req.negativePrompt])));
  const canvas = layout(req);
  const palette = canvas.scene.palette;
  const byLightness = [...palette].sort((a, b) => luminance(a) - luminance(b));
  const dark = byLightness[0] ?? [0, 0, 0];
  const light = byLightness[byLightness.length - 1] ?? [1, 1, 1];
  const frame = { r: light[0] * 255, g: light[1] * 255, b: light[2] * 255 };

  // Further references appear as framed insets in a grid in one corner, so each one is visible.
  const [first, ...extras] = req.references;
  if (!first) throw new WorkError('no reference image given', false);
  const cols = Math.max(1, Math.ceil(Math.sqrt(extras.length)));
  const rows = Math.max(1, Math.ceil(extras.length / cols));
  const margin = Math.round(Math.min(width, height) * 0.04);
  const cell = Math.floor(Math.min((width * 0.48) / cols, (height * 0.48) / rows));
  const border = Math.max(2, Math.round(cell * 0.04));
  const inner = Math.max(8, cell - 2 * border - Math.round(cell * 0.06));
  const originX = rng.next() < 0.5 ? width - margin - cols * cell : margin;
  const originY = rng.next() < 0.5 ? height - margin - rows * cell : margin;

  // Decode all references on libvips threads while the overlay (the prompt's shapes,
  // translucent) is painted here; report the first undecodable reference by position.
  const decoding = [
    decodeReference(first, 0, width, height, dark),
    ...extras.map((ref, i) => decodeReference(ref, i + 1, inner, inner, light)),
  ];
  const overlay = paint(canvas, false, rng.range(0.3, 0.45));
  const settled = await Promise.allSettled([
    ...decoding,
    sharp(overlay, { raw: { width: canvas.width, height: canvas.height, channels: 4 } })
      .resize(width, height, { fit: 'fill', kernel: 'linear' })
      .raw()
      .toBuffer(),
  ]);
  const decoded: Buffer[] = [];
  for (const result of settled) {
    if (result.status === 'rejected') throw result.reason;
    decoded.push(result.value);
  }
  const [base, ...rest] = decoded;
  const overlayFull = rest.pop();
  if (!base || !overlayFull) throw new WorkError('reference rendering failed', false);

  const layers: OverlayOptions[] = [{ input: overlayFull, raw: { width, height, channels: 4 } }];
  const insetSize = inner + 2 * border;
  rest.forEach((pixels, i) => {
    layers.push({
      input: pixels,
      raw: { width: inner, height: inner, channels: 3 },
      left: Math.max(0, originX + (i % cols) * cell + border),
      top: Math.max(0, originY + Math.floor(i / cols) * cell + border),
    });
  });
  // Frames behind the insets: one light square per inset, drawn before them.
  const frames: OverlayOptions[] = rest.map((_, i) => ({
    input: { create: { width: insetSize, height: insetSize, channels: 3, background: frame } },
    left: Math.max(0, originX + (i % cols) * cell),
    top: Math.max(0, originY + Math.floor(i / cols) * cell),
  }));
  layers.splice(1, 0, ...frames);

  let image = sharp(base, { raw: { width, height, channels: 3 } });
  // Few steps look soft, many steps look crisp (a 3x3 sharpening kernel, cheaper than unsharp masking).
  if (req.steps < 12) {
    image = image.blur(Math.max(0.3, ((12 - req.steps) * 0.25 * Math.max(width, height)) / 1024));
  } else if (req.steps > 32) {
    const a = 0.1 + 0.4 * clamp((req.steps - 32) / 30, 0, 1);
    image = image.convolve({ width: 3, height: 3, kernel: [0, -a, 0, -a, 1 + 4 * a, -a, 0, -a, 0] });
  }
  // Duotone toward the prompt palette, mixed with the original colours: per channel
  // out = keep * in + mix * (dark + (light - dark) * luminance(in)). Compositing gives the
  // image a constant alpha channel first, so the fourth matrix column adds the offset; the
  // matrix runs before compositing, so overlay and insets keep their colours.
  // Further references also act as style references: their average colour pulls both tones,
  // so each of them changes the whole picture, not only its inset.
  let toneDark: Rgb = dark;
  let toneLight: Rgb = light;
  if (rest.length > 0) {
    const mean = averageColour(rest);
    toneDark = [dark[0] * 0.5 + mean[0] * 0.175, dark[1] * 0.5 + mean[1] * 0.175, dark[2] * 0.5 + mean[2] * 0.175];
    toneLight = [light[0] * 0.5 + mean[0] * 0.5, light[1] * 0.5 + mean[1] * 0.5, light[2] * 0.5 + mean[2] * 0.5];
  }
  const mix = rng.range(0.35, 0.6);
  const keep = 1 - mix;
  const row = (c: 0 | 1 | 2): [number, number, number, number] => {
    const k = mix * (toneLight[c] - toneDark[c]);
    return [
      (c === 0 ? keep : 0) + k * 0.299,
      (c === 1 ? keep : 0) + k * 0.587,
      (c === 2 ? keep : 0) + k * 0.114,
      mix * toneDark[c],
    ];
  };
  image = image.recomb([row(0), row(1), row(2), [0, 0, 0, 1]]);
  return encodePng(image.composite(layers).removeAlpha(), width, height);
}

/** Renders one deterministic PNG for an image request (text-to-image or derived from references). */
export async function renderImage(req: ImageRenderRequest): Promise<RenderedFile> {
  const r = normalize(req);
  if (r.references.length > 0) return renderFromReferences(r);
  const canvas = layout(r);
  const image = sharp(paint(canvas, true), { raw: { width: canvas.width, height: canvas.height, channels: 3 } }).resize(
    r.width,
    r.height,
    { fit: 'fill', kernel: 'mitchell' },
  );
  return encodePng(image, r.width, r.height);
}

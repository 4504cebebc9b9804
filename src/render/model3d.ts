// Deterministic 3D model generation for the simulator provider. Every output is a valid
// binary glTF 2.0 file (GLB) whose mesh is a pure function of the request: the prompt picks
// an assembly of parts (a humanoid for "knight", a four-legged body for "fox", a car, a
// house, a tree, a vase, or a single deformed blob), the seeded hash of every input sets
// proportions and a fractal-noise displacement, and the face count lands within a few
// percent of `targetPolycount`.
//
// Each part is a superellipsoid built on a subdivided cube (a "cube sphere" with a
// rectangular a x b x c lattice, equi-angular spacing), so the mesh is made of quads
// throughout: for 'quad' topology every quad is written as two consecutive triangles that
// share its diagonal (faces = quads = triangles / 2), for 'triangle' topology the same
// triangles are the faces. Symmetry mirrors the displacement across the X = 0 plane.
import { Document, NodeIO } from '@gltf-transform/core';
import sharp from 'sharp';
import { WorkError } from '../lib/errors.ts';
import type { RenderedFile } from './file.ts';
import { Rng, sha256 } from './random.ts';

export interface GlbRenderRequest {
  prompt: string;
  seed: number;
  model: string;
  /** Target face count (quads for 'quad' topology, triangles for 'triangle'), 1000..100000. */
  targetPolycount: number;
  topology: 'triangle' | 'quad';
  symmetry: 'auto' | 'on' | 'off';
  artStyle: string;
  pbr: boolean;
  /** 'preview' is an untextured grey mesh; 'full' adds colours (and PBR material values). */
  mode: 'preview' | 'full';
  /** Humanoids stand with arms straight out to the sides. */
  tPose?: boolean;
  /** Reference image bytes (image-to-3D): part of the determinism key; its mean colour tints the model. */
  reference?: Buffer;
}

/** Bumped whenever the geometry changes, so old and new outputs never share a key by accident. */
const RENDER_VERSION = 'sim-3d-v1';
const MIN_FACES = 100;
const MAX_FACES = 300_000;

// ---------------------------------------------------------------------------------------
// Determinism: seeded gradient noise (hashing and the PRNG are in random.ts).

/** Improved Perlin noise with a seeded permutation; values roughly in -1..1. */
class Noise {
  private readonly perm = new Uint8Array(512);

  constructor(rng: Rng) {
    const p = Array.from({ length: 256 }, (_, i) => i);
    for (let i = 255; i > 0; i--) {
      const j = Math.floor(rng.next() * (i + 1));
      const t = p[i] ?? 0;
      p[i] = p[j] ?? 0;
      p[j] = t;
    }
    for (let i = 0; i < 512; i++) this.perm[i] = p[i & 255] ?? 0;
  }

  private static fade(t: number): number {
    return t * t * t * (t * (t * 6 - 15) + 10);
  }

  private static grad(hash: number, x: number, y: number, z: number): number {
    const h = hash & 15;
    const u = h < 8 ? x : y;
    const v = h < 4 ? y : h === 12 || h === 14 ? x : z;
    return ((h & 1) === 0 ? u : -u) + ((h & 2) === 0 ? v : -v);
  }

  noise(x: number, y: number, z: number): number {
    const fx = Math.floor(x);
    const fy = Math.floor(y);
    const fz = Math.floor(z);
    const X = fx & 255;
    const Y = fy & 255;
    const Z = fz & 255;
    x -= fx;
    y -= fy;
    z -= fz;
    const u = Noise.fade(x);
    const v = Noise.fade(y);
    const w = Noise.fade(z);
    const p = this.perm;
    const A = (p[X] ?? 0) + Y;
    const AA = (p[A] ?? 0) + Z;
    const AB = (p[A + 1] ?? 0) + Z;
    const B = (p[X + 1] ?? 0) + Y;
    const BA = (p[B] ?? 0) + Z;
    const BB = (p[B + 1] ?? 0) + Z;
    const lerp = (t: number, a: number, b: number): number => a + t * (b - a);
    const g = Noise.grad;
    return lerp(
      w,
      lerp(
        v,
        lerp(u, g(p[AA] ?? 0, x, y, z), g(p[BA] ?? 0, x - 1, y, z)),
        lerp(u, g(p[AB] ?? 0, x, y - 1, z), g(p[BB] ?? 0, x - 1, y - 1, z)),
      ),
      lerp(
        v,
        lerp(u, g(p[AA + 1] ?? 0, x, y, z - 1), g(p[BA + 1] ?? 0, x - 1, y, z - 1)),
        lerp(u, g(p[AB + 1] ?? 0, x, y - 1, z - 1), g(p[BB + 1] ?? 0, x - 1, y - 1, z - 1)),
      ),
    );
  }

  /** Fractal sum of `octaves` octaves. */
  fbm(x: number, y: number, z: number, octaves: number): number {
    let sum = 0;
    let amp = 1;
    let freq = 1;
    let norm = 0;
    for (let o = 0; o < octaves; o++) {
      sum += amp * this.noise(x * freq, y * freq, z * freq);
      norm += amp;
      amp *= 0.5;
      freq *= 2.03;
    }
    return sum / norm;
  }
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

// ---------------------------------------------------------------------------------------
// Shape plans: what the prompt is, as a list of superellipsoid parts.

type Vec3 = [number, number, number];
type Rgb = [number, number, number];

interface Part {
  name: string;
  center: Vec3;
  /** Half extents along x, y, z. */
  radii: Vec3;
  /** Superellipsoid exponents: along the polar axis and around it (1 = round, <1 = boxy, >1 = pinched). */
  e1: number;
  e2: number;
  /** The part's polar axis. */
  axis: 'x' | 'y' | 'z';
  /** Displacement amplitude as a share of the part's smallest radius. */
  roughness: number;
  colour: Rgb;
  /** Parts with the same `pair` are mirror images across X and keep identical lattices. */
  pair?: string;
}

type Category = 'humanoid' | 'quadruped' | 'vehicle' | 'building' | 'tree' | 'vessel' | 'blob';

const CATEGORY_WORDS: Array<[Category, string[]]> = [
  [
    'humanoid',
    [
      'person',
      'man',
      'woman',
      'boy',
      'girl',
      'knight',
      'warrior',
      'soldier',
      'robot',
      'character',
      'wizard',
      'witch',
      'elf',
      'human',
      'figure',
      'hero',
      'zombie',
      'astronaut',
      'ninja',
      'princess',
      'prince',
      'king',
      'queen',
      'samurai',
      'pirate',
      'doll',
      'android',
      'humanoid',
      'goblin',
      'orc',
      'dwarf',
      'mage',
      'villager',
      'superhero',
      'avatar',
      'statue',
    ],
  ],
  [
    'quadruped',
    [
      'dog',
      'cat',
      'horse',
      'fox',
      'wolf',
      'lion',
      'tiger',
      'cow',
      'bear',
      'deer',
      'pig',
      'sheep',
      'goat',
      'animal',
      'dragon',
      'dinosaur',
      'elephant',
      'rabbit',
      'puppy',
      'kitten',
      'unicorn',
      'creature',
      'beast',
    ],
  ],
  ['vehicle', ['car', 'truck', 'vehicle', 'van', 'bus', 'tank', 'jeep', 'taxi', 'racecar', 'buggy', 'tractor', 'cart']],
  [
    'building',
    [
      'house',
      'building',
      'cabin',
      'hut',
      'cottage',
      'box',
      'crate',
      'chest',
      'cabinet',
      'castle',
      'shop',
      'barn',
      'shed',
      'tower',
    ],
  ],
  ['tree', ['tree', 'plant', 'bush', 'mushroom', 'flower', 'palm', 'oak', 'pine', 'shrub', 'cactus', 'bonsai']],
  [
    'vessel',
    ['vase', 'bottle', 'cup', 'mug', 'pot', 'jar', 'lamp', 'potion', 'urn', 'flask', 'kettle', 'teapot', 'bowl'],
  ],
];

const COLOUR_WORDS: Record<string, Rgb> = {
  red: [0.78, 0.12, 0.1],
  crimson: [0.66, 0.06, 0.16],
  orange: [0.93, 0.45, 0.1],
  yellow: [0.95, 0.82, 0.2],
  gold: [0.85, 0.65, 0.18],
  golden: [0.85, 0.65, 0.18],
  green: [0.18, 0.6, 0.22],
  blue: [0.15, 0.3, 0.8],
  cyan: [0.1, 0.75, 0.8],
  teal: [0.08, 0.5, 0.5],
  purple: [0.5, 0.2, 0.7],
  violet: [0.55, 0.3, 0.8],
  pink: [0.95, 0.5, 0.65],
  white: [0.92, 0.92, 0.9],
  black: [0.06, 0.06, 0.07],
  grey: [0.5, 0.5, 0.5],
  gray: [0.5, 0.5, 0.5],
  silver: [0.75, 0.76, 0.78],
  brown: [0.45, 0.28, 0.14],
  wooden: [0.55, 0.36, 0.18],
  wood: [0.55, 0.36, 0.18],
  stone: [0.55, 0.54, 0.5],
  bronze: [0.7, 0.45, 0.2],
  copper: [0.72, 0.4, 0.25],
};
const METAL_WORDS = [
  'metal',
  'metallic',
  'steel',
  'iron',
  'chrome',
  'gold',
  'golden',
  'silver',
  'bronze',
  'copper',
  'robot',
  'armor',
  'armour',
  'android',
];
const PREVIEW_GREY: Rgb = [0.72, 0.72, 0.72];

function hsl(h: number, s: number, l: number): Rgb {
  const f = (n: number): number => {
    const k = (n + h / 30) % 12;
    return l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1));
  };
  return [f(0), f(8), f(4)];
}

function mix(a: Rgb, b: Rgb, t: number): Rgb {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
}

interface Style {
  /** Multiplies displacement. */
  roughness: number;
  /** Noise octaves. */
  octaves: number;
  /** Head size factor for humanoids. */
  head: number;
  /** Colour saturation factor. */
  saturation: number;
}

function styleFor(artStyle: string): Style {
  const s = artStyle.toLowerCase();
  if (/cartoon|toon|chibi|stylized|stylised|anime/.test(s))
    return { roughness: 0.35, octaves: 2, head: 1.6, saturation: 1.3 };
  if (/low.?poly|voxel/.test(s)) return { roughness: 0.6, octaves: 1, head: 1.1, saturation: 1 };
  if (/sculpt|clay|marble/.test(s)) return { roughness: 1.2, octaves: 5, head: 1, saturation: 0.2 };
  return { roughness: 1, octaves: 4, head: 1, saturation: 1 };
}

function categoryOf(words: string[]): Category {
  let best: Category = 'blob';
  let bestIndex = Number.POSITIVE_INFINITY;
  for (const [category, list] of CATEGORY_WORDS) {
    for (const w of list) {
      const i = words.findIndex((x) => x === w || x === `${w}s` || x === `${w}es`);
      // The noun nearest the start of the prompt ("a knight riding a horse" is a knight).
      if (i >= 0 && i < bestIndex) {
        bestIndex = i;
        best = category;
      }
    }
  }
  return best;
}

/** Natural colours per category, used (jittered) when the prompt names no colour. */
const NATURAL_COLOURS: Partial<Record<Category, Rgb[]>> = {
  tree: [
    [0.2, 0.48, 0.16],
    [0.28, 0.56, 0.2],
    [0.42, 0.27, 0.13],
  ],
  quadruped: [
    [0.55, 0.35, 0.18],
    [0.78, 0.45, 0.15],
    [0.45, 0.43, 0.4],
    [0.85, 0.8, 0.7],
  ],
  building: [
    [0.7, 0.55, 0.4],
    [0.55, 0.2, 0.15],
    [0.4, 0.26, 0.14],
    [0.5, 0.48, 0.46],
  ],
};
const SKIN_TONES: Rgb[] = [
  [0.96, 0.8, 0.69],
  [0.88, 0.67, 0.52],
  [0.76, 0.55, 0.4],
  [0.55, 0.36, 0.24],
  [0.4, 0.26, 0.17],
];

function paletteFor(words: string[], category: Category, rng: Rng, style: Style, tint: Rgb | undefined): Rgb[] {
  const named = words.map((w) => COLOUR_WORDS[w]).filter((c): c is Rgb => c !== undefined);
  const hue = rng.range(0, 360);
  const natural = (NATURAL_COLOURS[category] ?? []).map((c) => c.map((v) => clamp(v * rng.jitter(0.12), 0, 1)) as Rgb);
  const seeded: Rgb[] = [0, 1, 2, 3].map((i) =>
    hsl(
      (hue + i * rng.range(25, 140)) % 360,
      clamp(rng.range(0.35, 0.75) * style.saturation, 0, 1),
      rng.range(0.3, 0.65),
    ),
  );
  const palette = [...named, ...(named.length === 0 ? natural : []), ...seeded];
  return tint ? palette.map((c, i) => mix(c, tint, i === 0 ? 0.7 : 0.4)) : palette;
}

function superPart(
  name: string,
  center: Vec3,
  radii: Vec3,
  colour: Rgb,
  opts: Partial<Pick<Part, 'e1' | 'e2' | 'axis' | 'roughness' | 'pair'>> = {},
): Part {
  return { name, center, radii, colour, e1: 1, e2: 1, axis: 'y', roughness: 0.06, ...opts };
}

/** Left and right copies of a part centred at +x. */
function mirrored(part: Part): Part[] {
  const [x, y, z] = part.center;
  return [
    { ...part, name: `${part.name}_left`, center: [x, y, z], pair: part.name },
    { ...part, name: `${part.name}_right`, center: [-x, y, z], pair: part.name },
  ];
}

function planParts(
  category: Category,
  rng: Rng,
  palette: Rgb[],
  style: Style,
  tPose: boolean,
  robotic: boolean,
): Part[] {
  const c = (i: number): Rgb => palette[i % palette.length] ?? PREVIEW_GREY;
  const j = (s = 0.1): number => rng.jitter(s);
  switch (category) {
    case 'humanoid': {
      const height = 1.8 * j(0.06);
      const torsoW = 0.22 * j(0.15);
      const torsoH = 0.3 * j(0.08);
      const headR = 0.12 * style.head * j(0.08);
      const legLen = 0.44 * j(0.05);
      const hipY = legLen * 2;
      const torsoY = hipY + torsoH;
      const shoulderY = torsoY + torsoH * 0.8;
      const armLen = 0.36 * j(0.06);
      const skin = robotic ? c(2) : (SKIN_TONES[Math.floor(rng.next() * SKIN_TONES.length)] ?? c(2));
      const limb = 0.055 * j(0.15);
      const arm = tPose
        ? superPart('arm', [torsoW + armLen * 0.95, shoulderY, 0], [armLen, limb * 1.2, limb * 1.2], c(1), {
            axis: 'x',
            e1: 0.7,
          })
        : superPart(
            'arm',
            [torsoW + limb * 1.2, shoulderY - armLen * 0.95, 0],
            [limb * 1.2, armLen, limb * 1.2],
            c(1),
            {
              e1: 0.7,
            },
          );
      return [
        superPart('torso', [0, torsoY, 0], [torsoW, torsoH, 0.13 * j()], c(0), { e1: 0.55, e2: 0.8 }),
        superPart('head', [0, torsoY + torsoH + headR * 0.9, 0.01], [headR * 0.9, headR, headR * 0.95], skin, {
          roughness: 0.05,
        }),
        ...mirrored(arm),
        ...mirrored(superPart('leg', [0.1 * j(), legLen, 0], [limb * 1.5, legLen, limb * 1.6], c(3), { e1: 0.8 })),
      ].map((p) => ({ ...p, center: [p.center[0], p.center[1] * (height / 1.8), p.center[2]] as Vec3 }));
    }
    case 'quadruped': {
      const len = 0.55 * j();
      const bodyY = 0.62 * j(0.08);
      const legH = bodyY * 0.5;
      return [
        superPart('body', [0, bodyY, 0], [0.22 * j(), 0.2 * j(), len], c(0), { axis: 'z', e1: 0.9 }),
        superPart('head', [0, bodyY + 0.25 * j(), len + 0.12], [0.13 * j(), 0.13, 0.17 * j()], c(0)),
        superPart('snout', [0, bodyY + 0.2, len + 0.3 * j(0.05)], [0.07, 0.06, 0.09 * j(0.3)], c(2)),
        superPart('tail', [0, bodyY + 0.1, -len - 0.15], [0.04, 0.04, 0.2 * j(0.3)], c(1), { axis: 'z' }),
        ...mirrored(superPart('foreleg', [0.13, legH, len * 0.65], [0.055, legH, 0.055], c(1), { e1: 0.8 })),
        ...mirrored(superPart('hindleg', [0.13, legH, -len * 0.65], [0.06, legH, 0.06], c(1), { e1: 0.8 })),
        ...mirrored(superPart('ear', [0.07, bodyY + 0.4, len + 0.1], [0.03, 0.07 * j(0.3), 0.025], c(2))),
      ];
    }
    case 'vehicle': {
      const len = 1.0 * j();
      const wid = 0.45 * j();
      const wheelR = 0.19 * j();
      return [
        superPart('chassis', [0, wheelR + 0.2, 0], [wid, 0.2 * j(), len], c(0), {
          e1: 0.25,
          e2: 0.25,
          roughness: 0.02,
        }),
        superPart('cabin', [0, wheelR + 0.52, -0.1 * j(0.5)], [wid * 0.82, 0.16 * j(), len * 0.5], c(1), {
          e1: 0.4,
          e2: 0.35,
          roughness: 0.02,
        }),
        ...mirrored(
          superPart('front_wheel', [wid, wheelR, len * 0.62], [0.08, wheelR, wheelR], c(3), {
            axis: 'x',
            e1: 0.2,
            roughness: 0.03,
          }),
        ),
        ...mirrored(
          superPart('rear_wheel', [wid, wheelR, -len * 0.62], [0.08, wheelR, wheelR], c(3), {
            axis: 'x',
            e1: 0.2,
            roughness: 0.03,
          }),
        ),
      ];
    }
    case 'building': {
      const w = 0.6 * j();
      const h = 0.5 * j();
      const d = 0.5 * j();
      return [
        superPart('walls', [0, h, 0], [w, h, d], c(0), { e1: 0.15, e2: 0.15, roughness: 0.03 }),
        superPart('roof', [0, 2 * h + 0.2, 0], [w * 1.15, 0.32 * j(), d * 1.15], c(1), {
          e1: 1.6,
          e2: 0.3,
          roughness: 0.03,
        }),
        superPart('door', [0, 0.22, d], [0.12, 0.22, 0.03], c(2), { e1: 0.2, e2: 0.2, roughness: 0.01 }),
        superPart('chimney', [w * 0.5, 2 * h + 0.35, 0], [0.07, 0.22, 0.07], c(3), {
          e1: 0.2,
          e2: 0.2,
          roughness: 0.02,
        }),
      ];
    }
    case 'tree': {
      const trunkH = 0.5 * j();
      return [
        superPart('trunk', [0, trunkH, 0], [0.09 * j(), trunkH, 0.09], c(2), { e1: 0.3, roughness: 0.1 }),
        superPart('canopy', [0, trunkH * 2 + 0.35, 0], [0.55 * j(), 0.5 * j(), 0.55 * j()], c(0), { roughness: 0.22 }),
      ];
    }
    case 'vessel': {
      const bodyR = 0.25 * j();
      const bodyH = 0.32 * j();
      return [
        superPart('body', [0, bodyH, 0], [bodyR, bodyH, bodyR], c(0), { e1: 0.7 * j(0.3), roughness: 0.02 }),
        superPart('neck', [0, bodyH * 2 + 0.1, 0], [bodyR * 0.35, 0.14 * j(), bodyR * 0.35], c(1), {
          e1: 0.3,
          roughness: 0.02,
        }),
        superPart('lip', [0, bodyH * 2 + 0.25, 0], [bodyR * 0.45, 0.03, bodyR * 0.45], c(1), {
          e1: 0.5,
          roughness: 0.01,
        }),
      ];
    }
    default: {
      const r = rng.range(0.4, 0.7);
      return [
        superPart('body', [0, r, 0], [r * j(0.25), r * j(0.25), r * j(0.25)], c(0), {
          e1: rng.range(0.5, 1.6),
          e2: rng.range(0.5, 1.6),
          roughness: 0.14,
        }),
      ];
    }
  }
}

// ---------------------------------------------------------------------------------------
// Face budget: lattice sizes (a, b, c) per part so the quads add up to the target.

function quadsOf([a, b, c]: Vec3): number {
  return 2 * (a * b + b * c + c * a);
}

/** Lattice dimensions per part such that the total quad count is as close as possible to `target`. */
function allocateLattices(parts: Part[], target: number): Vec3[] {
  // Start proportional to each part's extents (roughly square quads everywhere).
  let area = 0;
  for (const p of parts) {
    const [x, y, z] = p.radii;
    area += 2 * (x * y + y * z + z * x);
  }
  const k = Math.sqrt(target / area);
  const dims: Vec3[] = parts.map((p) => p.radii.map((r) => Math.max(1, Math.round(k * r))) as Vec3);
  // Groups that must stay identical (mirror pairs) are adjusted together.
  const groups = new Map<string, number[]>();
  parts.forEach((p, i) => {
    const key = p.pair ?? `#${i}`;
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  let total = dims.reduce((s, d) => s + quadsOf(d), 0);
  for (let iteration = 0; iteration < 10_000; iteration++) {
    let bestTotal = total;
    let bestMove: { members: number[]; axis: number; delta: number } | undefined;
    for (const members of groups.values()) {
      const first = dims[members[0] ?? 0];
      if (!first) continue;
      for (let axis = 0; axis < 3; axis++) {
        for (const delta of [-1, 1]) {
          const next = [...first] as Vec3;
          next[axis] = (next[axis] ?? 1) + delta;
          if ((next[axis] ?? 0) < 1) continue;
          // Keep quads roughly square: never stretch a lattice axis beyond 4x its share.
          const share = (parts[members[0] ?? 0]?.radii[axis] ?? 1) * k;
          if ((next[axis] ?? 0) > Math.max(4, share * 4)) continue;
          const candidate = total + (quadsOf(next) - quadsOf(first)) * members.length;
          if (Math.abs(candidate - target) < Math.abs(bestTotal - target)) {
            bestTotal = candidate;
            bestMove = { members, axis, delta };
          }
        }
      }
    }
    if (!bestMove) break;
    for (const m of bestMove.members) {
      const d = dims[m];
      if (d) d[bestMove.axis] = (d[bestMove.axis] ?? 1) + bestMove.delta;
    }
    total = bestTotal;
  }
  return dims;
}

// ---------------------------------------------------------------------------------------
// Mesh building.

interface MeshData {
  positions: number[];
  normals: Float32Array<ArrayBuffer>;
  colours: number[];
  /** Triangles, two consecutive per quad (a, b, c) + (a, c, d). */
  indices: number[];
  quads: number;
}

function signedPow(v: number, e: number): number {
  return Math.sign(v) * Math.abs(v) ** e;
}

/**
 * Appends one part: the surface of an (a x b x c) lattice cube, each lattice point mapped
 * to the superellipsoid along its (equi-angular) direction and displaced by noise.
 */
function addPart(
  mesh: MeshData,
  part: Part,
  dims: Vec3,
  noise: Noise,
  octaves: number,
  roughnessScale: number,
  symmetric: boolean,
  colourNoise: Noise,
): void {
  const [na, nb, nc] = dims;
  const index = new Map<number, number>();
  const key = (i: number, j: number, k: number): number => (i * (nb + 1) + j) * (nc + 1) + k;
  const toCube = (i: number, n: number): number => Math.tan(((2 * i) / n - 1) * (Math.PI / 4));
  const [rx, ry, rz] = part.radii;
  const [cx, cy, cz] = part.center;
  const amplitude = Math.min(rx, ry, rz) * part.roughness * roughnessScale * 3;
  const frequency = 2.2 / Math.max(0.05, Math.min(rx, ry, rz) * 2 + Math.max(rx, ry, rz));

  const vertex = (i: number, j: number, k: number): number => {
    const id = key(i, j, k);
    const existing = index.get(id);
    if (existing !== undefined) return existing;
    // Direction from the equi-angular cube point.
    let dx = toCube(i, na);
    let dy = toCube(j, nb);
    let dz = toCube(k, nc);
    const len = Math.hypot(dx, dy, dz);
    dx /= len;
    dy /= len;
    dz /= len;
    // Superellipsoid in the part's frame: polar axis → local "up".
    const [ux, uy, uz] = part.axis === 'x' ? [dy, dx, dz] : part.axis === 'z' ? [dx, dz, dy] : [dx, dy, dz];
    const ring = Math.hypot(ux, uz);
    const cw = ring > 1e-9 ? ux / ring : 1;
    const sw = ring > 1e-9 ? uz / ring : 0;
    const lx = signedPow(ring, part.e1) * signedPow(cw, part.e2);
    const ly = signedPow(uy, part.e1);
    const lz = signedPow(ring, part.e1) * signedPow(sw, part.e2);
    const [sx, sy, sz] = part.axis === 'x' ? [ly, lx, lz] : part.axis === 'z' ? [lx, lz, ly] : [lx, ly, lz];
    let px = cx + rx * sx;
    let py = cy + ry * sy;
    let pz = cz + rz * sz;
    // Displacement along the direction, from noise sampled in world space (mirrored in X when symmetric).
    const nx = (symmetric ? Math.abs(px) : px) * frequency;
    const n = noise.fbm(nx + 17.3, py * frequency + 5.1, pz * frequency - 9.7, octaves);
    px += dx * amplitude * n;
    py += dy * amplitude * n;
    pz += dz * amplitude * n;
    mesh.positions.push(px, py, pz);
    const shade = 0.82 + 0.18 * n + 0.08 * colourNoise.noise((symmetric ? Math.abs(px) : px) * 6, py * 6, pz * 6);
    mesh.colours.push(
      clamp(part.colour[0] * shade, 0, 1),
      clamp(part.colour[1] * shade, 0, 1),
      clamp(part.colour[2] * shade, 0, 1),
    );
    const v = mesh.positions.length / 3 - 1;
    index.set(id, v);
    return v;
  };

  // A quad of lattice points, wound counter-clockwise seen from outside (normal = +axis * sign).
  const quad = (a: number, b: number, c: number, d: number): void => {
    mesh.indices.push(a, b, c, a, c, d);
    mesh.quads++;
  };
  // ±x faces (j along y, k along z), ±y faces, ±z faces.
  for (let j = 0; j < nb; j++) {
    for (let k = 0; k < nc; k++) {
      quad(vertex(na, j, k), vertex(na, j + 1, k), vertex(na, j + 1, k + 1), vertex(na, j, k + 1));
      quad(vertex(0, j, k), vertex(0, j, k + 1), vertex(0, j + 1, k + 1), vertex(0, j + 1, k));
    }
  }
  for (let i = 0; i < na; i++) {
    for (let k = 0; k < nc; k++) {
      quad(vertex(i, nb, k), vertex(i, nb, k + 1), vertex(i + 1, nb, k + 1), vertex(i + 1, nb, k));
      quad(vertex(i, 0, k), vertex(i + 1, 0, k), vertex(i + 1, 0, k + 1), vertex(i, 0, k + 1));
    }
  }
  for (let i = 0; i < na; i++) {
    for (let j = 0; j < nb; j++) {
      quad(vertex(i, j, nc), vertex(i + 1, j, nc), vertex(i + 1, j + 1, nc), vertex(i, j + 1, nc));
      quad(vertex(i, j, 0), vertex(i, j + 1, 0), vertex(i + 1, j + 1, 0), vertex(i + 1, j, 0));
    }
  }
}

/** Area-weighted smooth vertex normals. */
function computeNormals(positions: Float32Array, indices: Uint32Array): Float32Array<ArrayBuffer> {
  const normals = new Float32Array(positions.length);
  for (let t = 0; t < indices.length; t += 3) {
    const a = (indices[t] ?? 0) * 3;
    const b = (indices[t + 1] ?? 0) * 3;
    const c = (indices[t + 2] ?? 0) * 3;
    const abx = (positions[b] ?? 0) - (positions[a] ?? 0);
    const aby = (positions[b + 1] ?? 0) - (positions[a + 1] ?? 0);
    const abz = (positions[b + 2] ?? 0) - (positions[a + 2] ?? 0);
    const acx = (positions[c] ?? 0) - (positions[a] ?? 0);
    const acy = (positions[c + 1] ?? 0) - (positions[a + 1] ?? 0);
    const acz = (positions[c + 2] ?? 0) - (positions[a + 2] ?? 0);
    const nx = aby * acz - abz * acy;
    const ny = abz * acx - abx * acz;
    const nz = abx * acy - aby * acx;
    for (const v of [a, b, c]) {
      normals[v] = (normals[v] ?? 0) + nx;
      normals[v + 1] = (normals[v + 1] ?? 0) + ny;
      normals[v + 2] = (normals[v + 2] ?? 0) + nz;
    }
  }
  for (let v = 0; v < normals.length; v += 3) {
    const len = Math.hypot(normals[v] ?? 0, normals[v + 1] ?? 0, normals[v + 2] ?? 0);
    if (len > 0) {
      normals[v] = (normals[v] ?? 0) / len;
      normals[v + 1] = (normals[v + 1] ?? 0) / len;
      normals[v + 2] = (normals[v + 2] ?? 0) / len;
    } else {
      normals[v + 1] = 1;
    }
  }
  return normals;
}

async function referenceTint(reference: Buffer): Promise<Rgb | undefined> {
  try {
    const { channels } = await sharp(reference).stats();
    const [r, g, b] = channels;
    if (!r || !g || !b) return undefined;
    return [r.mean / 255, g.mean / 255, b.mean / 255];
  } catch {
    throw new WorkError('The reference image could not be decoded', false);
  }
}

// ---------------------------------------------------------------------------------------
// Entry point.

/**
 * A GLB for the request. Same request → byte-identical file. `faces` counts quads for
 * 'quad' topology and triangles for 'triangle' topology; `triangles` is always the
 * number of triangles in the index buffer.
 */
export async function renderGlb(req: GlbRenderRequest): Promise<RenderedFile & { faces: number; triangles: number }> {
  if (!Number.isFinite(req.targetPolycount) || req.targetPolycount <= 0) {
    throw new WorkError('targetPolycount must be a positive number', false);
  }
  const target = Math.round(clamp(req.targetPolycount, MIN_FACES, MAX_FACES));
  const quadTopology = req.topology === 'quad';
  const targetQuads = quadTopology ? target : target / 2;
  const symmetric = req.symmetry !== 'off';
  const key = JSON.stringify([
    RENDER_VERSION,
    req.prompt.trim(),
    req.seed,
    req.model,
    target,
    req.topology,
    symmetric,
    req.artStyle.toLowerCase(),
    req.pbr,
    req.mode,
    req.tPose === true,
    req.reference ? sha256(req.reference).toString('hex') : null,
  ]);
  const digest = sha256(key);
  const rng = new Rng(digest);
  const noise = new Noise(new Rng(sha256(`${key}\u0000noise`)));
  const colourNoise = new Noise(new Rng(sha256(`${key}\u0000colour`)));
  const words = req.prompt.toLowerCase().match(/[a-z]+/g) ?? [];
  const style = styleFor(req.artStyle);
  const category = categoryOf(words);
  const tint = req.reference ? await referenceTint(req.reference) : undefined;
  const palette = paletteFor(words, category, rng, style, tint);
  const robotic = words.some((w) => ['robot', 'android', 'astronaut', 'statue', 'mech', 'cyborg'].includes(w));
  const parts = planParts(category, rng, palette, style, req.tPose === true, robotic);
  const dims = allocateLattices(parts, targetQuads);

  const mesh: MeshData = { positions: [], normals: new Float32Array(0), colours: [], indices: [], quads: 0 };
  parts.forEach((part, i) => {
    addPart(mesh, part, dims[i] ?? [1, 1, 1], noise, style.octaves, style.roughness, symmetric, colourNoise);
  });
  // Stand on the ground (y = 0), centred in x and z.
  const positions = Float32Array.from(mesh.positions);
  let minY = Number.POSITIVE_INFINITY;
  let minZ = Number.POSITIVE_INFINITY;
  let maxZ = Number.NEGATIVE_INFINITY;
  for (let v = 0; v < positions.length; v += 3) {
    minY = Math.min(minY, positions[v + 1] ?? 0);
    minZ = Math.min(minZ, positions[v + 2] ?? 0);
    maxZ = Math.max(maxZ, positions[v + 2] ?? 0);
  }
  const midZ = (minZ + maxZ) / 2;
  for (let v = 0; v < positions.length; v += 3) {
    positions[v + 1] = (positions[v + 1] ?? 0) - minY;
    positions[v + 2] = (positions[v + 2] ?? 0) - midZ;
  }
  const indices = Uint32Array.from(mesh.indices);
  const normals = computeNormals(positions, indices);
  const triangles = indices.length / 3;
  const faces = quadTopology ? mesh.quads : triangles;

  const doc = new Document();
  doc.getRoot().getAsset().generator = 'genmedia simulator';
  const buffer = doc.createBuffer();
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', doc.createAccessor('position').setType('VEC3').setArray(positions).setBuffer(buffer))
    .setAttribute('NORMAL', doc.createAccessor('normal').setType('VEC3').setArray(normals).setBuffer(buffer))
    .setIndices(
      doc
        .createAccessor('indices')
        .setType('SCALAR')
        .setArray(positions.length / 3 <= 65535 ? Uint16Array.from(indices) : indices)
        .setBuffer(buffer),
    );
  const full = req.mode === 'full';
  if (full) {
    primitive.setAttribute(
      'COLOR_0',
      doc.createAccessor('colour').setType('VEC3').setArray(Float32Array.from(mesh.colours)).setBuffer(buffer),
    );
  }
  const metal = words.some((w) => METAL_WORDS.includes(w));
  const material = doc
    .createMaterial(full ? 'surface' : 'preview')
    .setBaseColorFactor(full ? [1, 1, 1, 1] : [...PREVIEW_GREY, 1])
    .setMetallicFactor(req.pbr && full ? (metal ? 0.85 : 0.05) : 0)
    .setRoughnessFactor(req.pbr && full ? (metal ? 0.3 : clamp(0.55 + rng.range(-0.15, 0.3), 0, 1)) : 1);
  primitive.setMaterial(material);
  const meshExtras: Record<string, unknown> = { topology: req.topology, faces, triangles };
  primitive.setExtras(meshExtras);
  const name = words.slice(0, 6).join('_') || 'model';
  const gltfMesh = doc.createMesh(name).addPrimitive(primitive).setExtras(meshExtras);
  const node = doc.createNode(name).setMesh(gltfMesh);
  const scene = doc.createScene('Scene').addChild(node);
  doc.getRoot().setDefaultScene(scene);
  doc.getRoot().setExtras({
    prompt: req.prompt,
    seed: req.seed,
    model: req.model,
    category,
    artStyle: req.artStyle,
    mode: req.mode,
    symmetry: symmetric ? 'on' : 'off',
    parts: parts.map((p) => p.name),
  });
  const data = Buffer.from(await new NodeIO().writeBinary(doc));
  return { data, contentType: 'model/gltf-binary', extension: 'glb', faces, triangles };
}

// The simulator's 3D generator: valid GLB files (parsed back with glTF-Transform) whose face
// count follows the target, quads for 'quad' topology, mirror symmetry on request, and
// geometry that is deterministic in every input and changes with the prompt.
// Standalone (no database): node --test test/simulator-3d.test.ts

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Document, NodeIO, type Primitive } from '@gltf-transform/core';
import sharp from 'sharp';
import { WorkError } from '../src/lib/errors.ts';
import { type GlbRenderRequest, renderGlb } from '../src/render/model3d.ts';

const BASE: GlbRenderRequest = {
  prompt: 'a brave knight in silver armor',
  seed: 42,
  model: 'meshy-5',
  targetPolycount: 8000,
  topology: 'triangle',
  symmetry: 'auto',
  artStyle: 'realistic',
  pbr: true,
  mode: 'full',
};

async function parse(data: Buffer): Promise<{ doc: Document; prim: Primitive }> {
  const doc = await new NodeIO().readBinary(new Uint8Array(data));
  const meshes = doc.getRoot().listMeshes();
  assert.equal(meshes.length, 1);
  const prim = meshes[0]?.listPrimitives()[0];
  assert.ok(prim);
  return { doc, prim };
}

function arrays(prim: Primitive): { pos: Float32Array; idx: Uint32Array; nor: Float32Array } {
  const pos = prim.getAttribute('POSITION')?.getArray();
  const nor = prim.getAttribute('NORMAL')?.getArray();
  const idx = prim.getIndices()?.getArray();
  assert.ok(pos instanceof Float32Array && nor instanceof Float32Array && idx);
  return { pos, nor, idx: Uint32Array.from(idx) };
}

function triangleNormal(pos: Float32Array, a: number, b: number, c: number): [number, number, number] {
  const p = (i: number, k: number): number => pos[i * 3 + k] ?? 0;
  const ab = [p(b, 0) - p(a, 0), p(b, 1) - p(a, 1), p(b, 2) - p(a, 2)] as const;
  const ac = [p(c, 0) - p(a, 0), p(c, 1) - p(a, 1), p(c, 2) - p(a, 2)] as const;
  const n: [number, number, number] = [
    ab[1] * ac[2] - ab[2] * ac[1],
    ab[2] * ac[0] - ab[0] * ac[2],
    ab[0] * ac[1] - ab[1] * ac[0],
  ];
  const len = Math.hypot(...n) || 1;
  return [n[0] / len, n[1] / len, n[2] / len];
}

/** Share of vertices whose mirror image across X = 0 is also a vertex (to 1e-4). */
function mirroredShare(pos: Float32Array): number {
  const key = (x: number, y: number, z: number): string =>
    `${Math.round(x * 1e4)},${Math.round(y * 1e4)},${Math.round(z * 1e4)}`;
  const set = new Set<string>();
  for (let i = 0; i < pos.length; i += 3) set.add(key(pos[i] ?? 0, pos[i + 1] ?? 0, pos[i + 2] ?? 0));
  let hits = 0;
  for (let i = 0; i < pos.length; i += 3) if (set.has(key(-(pos[i] ?? 0), pos[i + 1] ?? 0, pos[i + 2] ?? 0))) hits++;
  return hits / (pos.length / 3);
}

describe('simulator 3D models', () => {
  test('a valid GLB with normals, a material and a triangle count on target', async () => {
    for (const target of [1000, 8000, 30000]) {
      const out = await renderGlb({ ...BASE, targetPolycount: target });
      assert.equal(out.contentType, 'model/gltf-binary');
      assert.equal(out.extension, 'glb');
      assert.equal(out.data.toString('latin1', 0, 4), 'glTF');
      assert.equal(out.data.readUInt32LE(4), 2, 'glTF version 2');
      assert.equal(out.data.readUInt32LE(8), out.data.length, 'GLB length header');
      const { doc, prim } = await parse(out.data);
      const { pos, idx, nor } = arrays(prim);
      assert.equal(idx.length / 3, out.triangles);
      assert.equal(out.faces, out.triangles, 'triangle topology: faces are triangles');
      assert.ok(Math.abs(out.faces / target - 1) <= 0.1, `${out.faces} faces for a target of ${target}`);
      assert.equal(nor.length, pos.length);
      for (let i = 0; i < nor.length; i += 3) {
        assert.ok(Math.abs(Math.hypot(nor[i] ?? 0, nor[i + 1] ?? 0, nor[i + 2] ?? 0) - 1) < 1e-3, 'unit normals');
      }
      for (const v of idx) assert.ok(v < pos.length / 3, 'indices in range');
      const material = prim.getMaterial();
      assert.ok(material);
      assert.ok(material.getMetallicFactor() > 0.5, 'silver armor reads as metal');
      assert.ok(prim.getAttribute('COLOR_0'), 'full mode is coloured');
      assert.equal(doc.getRoot().listScenes().length, 1);
      assert.equal(doc.getRoot().getExtras().category, 'humanoid');
    }
  });

  test('extremes of the polycount range stay within 10%', async () => {
    for (const prompt of [
      'a red fox',
      'a sports car',
      'a wooden house',
      'an oak tree',
      'a blue vase',
      'a mossy rock',
    ]) {
      for (const [target, topology] of [
        [1000, 'quad'],
        [1000, 'triangle'],
        [100000, 'triangle'],
      ] as const) {
        const out = await renderGlb({ ...BASE, prompt, targetPolycount: target, topology });
        assert.ok(Math.abs(out.faces / target - 1) <= 0.1, `${prompt} ${topology}: ${out.faces} faces for ${target}`);
      }
    }
  });

  test('quad topology: faces are quads written as triangle pairs sharing a diagonal', async () => {
    const out = await renderGlb({ ...BASE, topology: 'quad', targetPolycount: 5000 });
    assert.ok(Math.abs(out.faces / 5000 - 1) <= 0.1, `${out.faces} quads`);
    assert.equal(out.triangles, out.faces * 2);
    const { doc, prim } = await parse(out.data);
    assert.deepEqual(prim.getExtras(), { topology: 'quad', faces: out.faces, triangles: out.triangles });
    assert.equal(doc.getRoot().listMeshes()[0]?.getExtras().topology, 'quad');
    const { pos, idx } = arrays(prim);
    let planarity = 0;
    for (let t = 0; t < idx.length; t += 6) {
      const first = [idx[t], idx[t + 1], idx[t + 2]];
      const second = [idx[t + 3], idx[t + 4], idx[t + 5]];
      const shared = first.filter((v) => second.includes(v));
      assert.equal(shared.length, 2, `triangles ${t / 3} and ${t / 3 + 1} share an edge`);
      assert.equal(new Set([...first, ...second]).size, 4, 'a pair spans four corners');
      const n1 = triangleNormal(pos, idx[t] ?? 0, idx[t + 1] ?? 0, idx[t + 2] ?? 0);
      const n2 = triangleNormal(pos, idx[t + 3] ?? 0, idx[t + 4] ?? 0, idx[t + 5] ?? 0);
      const dot = n1[0] * n2[0] + n1[1] * n2[1] + n1[2] * n2[2];
      assert.ok(dot > 0.3, 'the two halves of a quad face the same way');
      planarity += dot;
    }
    assert.ok(
      planarity / (idx.length / 6) > 0.97,
      `quads are nearly planar (mean cos ${planarity / (idx.length / 6)})`,
    );
  });

  test('symmetry mirrors the geometry across X; off does not', async () => {
    for (const prompt of ['a mossy rock', 'a brave knight in silver armor', 'a red fox']) {
      const on = arrays((await parse((await renderGlb({ ...BASE, prompt, symmetry: 'on' })).data)).prim);
      const auto = arrays((await parse((await renderGlb({ ...BASE, prompt, symmetry: 'auto' })).data)).prim);
      const off = arrays((await parse((await renderGlb({ ...BASE, prompt, symmetry: 'off' })).data)).prim);
      assert.ok(mirroredShare(on.pos) > 0.99, `${prompt}: symmetric`);
      assert.ok(mirroredShare(auto.pos) > 0.99, `${prompt}: auto is symmetric`);
      assert.ok(mirroredShare(off.pos) < 0.5, `${prompt}: symmetry off is not (${mirroredShare(off.pos)})`);
    }
  });

  test('deterministic: the same inputs give the same bytes', async () => {
    const a = await renderGlb(BASE);
    const b = await renderGlb({ ...BASE });
    assert.ok(a.data.equals(b.data));
    const c = await renderGlb({ ...BASE, topology: 'quad', reference: Buffer.from('x') }).catch((e: unknown) => e);
    assert.ok(c instanceof WorkError && !c.retryable, 'an undecodable reference fails, not retryably');
  });

  test('the prompt, seed and other inputs change the geometry', async () => {
    const positions = async (overrides: Partial<GlbRenderRequest>): Promise<Float32Array> =>
      arrays((await parse((await renderGlb({ ...BASE, ...overrides })).data)).prim).pos;
    const base = await positions({});
    const different = (a: Float32Array, b: Float32Array): boolean => {
      if (a.length !== b.length) return true;
      let diff = 0;
      for (let i = 0; i < a.length; i++) diff += Math.abs((a[i] ?? 0) - (b[i] ?? 0));
      return diff / a.length > 1e-3;
    };
    assert.ok(different(base, await positions({ prompt: 'a brave knight in golden armor' })), 'prompt');
    assert.ok(different(base, await positions({ prompt: 'a red fox' })), 'another kind of object');
    assert.ok(different(base, await positions({ seed: 43 })), 'seed');
    assert.ok(different(base, await positions({ model: 'meshy-4' })), 'model');
    assert.ok(different(base, await positions({ tPose: true })), 'T-pose');
    const wide = (pos: Float32Array): number => {
      let max = 0;
      for (let i = 0; i < pos.length; i += 3) max = Math.max(max, Math.abs(pos[i] ?? 0));
      return max;
    };
    assert.ok(wide(await positions({ tPose: true })) > wide(base) * 1.5, 'a T-pose spreads the arms');
  });

  test('preview mode is plain grey; pbr off has no metal; a reference tints the model', async () => {
    const preview = await parse((await renderGlb({ ...BASE, mode: 'preview' })).data);
    assert.equal(preview.prim.getAttribute('COLOR_0'), null);
    assert.equal(preview.prim.getMaterial()?.getMetallicFactor(), 0);
    const plain = await parse((await renderGlb({ ...BASE, pbr: false })).data);
    assert.equal(plain.prim.getMaterial()?.getMetallicFactor(), 0);

    const red = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#ff0000' } })
      .png()
      .toBuffer();
    const tinted = await parse((await renderGlb({ ...BASE, prompt: 'a vase', reference: red })).data);
    const colours = tinted.prim.getAttribute('COLOR_0')?.getArray();
    assert.ok(colours);
    let r = 0;
    let g = 0;
    for (let i = 0; i < colours.length; i += 3) {
      r += colours[i] ?? 0;
      g += colours[i + 1] ?? 0;
    }
    assert.ok(r > g * 1.5, 'a red reference makes a reddish model');
  });
});

// ComfyUI runs graphs, not endpoints: a route's endpoint names a workflow template (a file of
// src/catalog/comfyui/ in ComfyUI's API format, `node id -> {class_type, inputs, _meta.title}`),
// and a mapping turns our request into named values that go into the nodes titled for them:
//
//   values                    node titles               inputs that take them
//   prompt, negative_prompt   prompt, negative_prompt   text (CLIPTextEncode) | value (a primitive)
//   seed; steps               seed; steps               seed | noise_seed | value; steps | value
//   width, height             size                      width, height (EmptyLatentImage, ImageScale)
//   frames; fps               frames; fps               length | value; fps | frame_rate | value
//   image                     image                     image (LoadImage): the name the upload returned
//   lora_name, lora_strength  lora                      lora_name; strength_model, strength_clip
//   checkpoint                checkpoint                ckpt_name | unet_name (a route's params may set it)
//
// Several nodes may carry one title (all get the value). Seed and steps live in separate PrimitiveInt
// nodes linked into the sampler, since a KSampler node has one title but takes both.
//
// Values a workflow has no node for: an image or a LoRA is refused (`invalid_input`: the user would
// get another picture than the one asked for); the others are left to the workflow (a turbo
// workflow without a steps node keeps its own).
//
// LoRAs: ComfyUI loads them by file name from its own models/loras folder and has no API to fetch
// one, so a LoRA URL is mapped to the file name it ends in (`.../detail-tweaker.safetensors` ->
// `detail-tweaker.safetensors`); the operator places that file in the folder. A file that is not
// there is ComfyUI's own "Value not in list" refusal, answered as `invalid_input`. When no LoRA is
// asked for, the `lora` node is cut out and its consumers are wired to its inputs: strength 0 would
// still need the named file to exist, since ComfyUI checks lora_name against its folder first.
//
// The templates use core nodes only: SDXL (sd_xl_base_1.0.safetensors) for the images, Wan 2.2
// TI2V 5B (wan2.2_ti2v_5B_fp16, umt5_xxl_fp8_e4m3fn_scaled, wan2.2_vae) for the video; the operator
// places those files, or names others through a route's `checkpoint` param or their own templates.
import { readdirSync, readFileSync } from 'node:fs';
import { asRecord } from '../../lib/records.ts';
import { type Mapping, mappingFor } from '../mapping.ts';
import { ProviderError } from '../types.ts';

/** An input wired to another node's output: `[node id, output index]`. */
export type WorkflowLink = [nodeId: string, outputIndex: number];

/** A node input: a widget value, a link, or a list value wrapped as ComfyUI wraps them. */
export type WorkflowInput = string | number | boolean | null | WorkflowLink | { __value__: unknown[] };

export interface WorkflowNode {
  class_type: string;
  inputs: Record<string, WorkflowInput>;
  _meta?: { title?: string };
}

/** A workflow in ComfyUI's API format, by node id. */
export type Workflow = Record<string, WorkflowNode>;

interface Slot {
  title: string;
  /** Every one of these inputs the titled node has takes the value (it must have one). */
  inputs: readonly string[];
  type: 'string' | 'number';
}

const SLOTS: Record<string, Slot> = {
  prompt: { title: 'prompt', inputs: ['text', 'value'], type: 'string' },
  negative_prompt: { title: 'negative_prompt', inputs: ['text', 'value'], type: 'string' },
  seed: { title: 'seed', inputs: ['seed', 'noise_seed', 'value'], type: 'number' },
  steps: { title: 'steps', inputs: ['steps', 'value'], type: 'number' },
  width: { title: 'size', inputs: ['width'], type: 'number' },
  height: { title: 'size', inputs: ['height'], type: 'number' },
  frames: { title: 'frames', inputs: ['length', 'value'], type: 'number' },
  fps: { title: 'fps', inputs: ['fps', 'frame_rate', 'value'], type: 'number' },
  image: { title: 'image', inputs: ['image'], type: 'string' },
  lora_name: { title: 'lora', inputs: ['lora_name'], type: 'string' },
  lora_strength: { title: 'lora', inputs: ['strength_model', 'strength_clip'], type: 'number' },
  checkpoint: { title: 'checkpoint', inputs: ['ckpt_name', 'unet_name'], type: 'string' },
};

const TITLES = new Set(Object.values(SLOTS).map((slot) => slot.title));

// What a LoRA loader passes through when it is cut out: its output i comes from input BYPASS[i].
const BYPASS: Record<string, readonly string[]> = {
  LoraLoader: ['model', 'clip'],
  LoraLoaderModelOnly: ['model'],
};

// Values the user would miss if the workflow dropped them.
const REQUIRED_NODES: Record<string, string> = {
  image: 'takes no input image',
  lora_name: 'takes no LoRA',
};

const DEFAULT_DIR = new URL('../../catalog/comfyui/', import.meta.url);

/** Whether an input is a link to another node. */
export function isLink(value: unknown): value is WorkflowLink {
  return (
    Array.isArray(value) &&
    value.length === 2 &&
    typeof value[0] === 'string' &&
    Number.isInteger(value[1]) &&
    (value[1] as number) >= 0
  );
}

function isInput(value: unknown): value is WorkflowInput {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (isLink(value)) return true;
  const record = asRecord(value);
  return record !== undefined && Object.keys(record).length === 1 && Array.isArray(record.__value__);
}

/** The titles of values (`prompt`, `seed`, `size`, `lora`, ...) a workflow has nodes for. */
export function namedNodes(workflow: Workflow): string[] {
  const titles = new Set<string>();
  for (const node of Object.values(workflow)) {
    const title = node._meta?.title;
    if (title !== undefined && TITLES.has(title)) titles.add(title);
  }
  return [...titles].sort();
}

/** A workflow template checked for what filling it relies on; throws an Error saying what to fix. */
export function parseWorkflow(name: string, json: unknown): Workflow {
  const fail = (what: string): never => {
    throw new Error(`ComfyUI workflow ${name}: ${what}`);
  };
  const graph = asRecord(json) ?? fail('is not a JSON object of nodes in ComfyUI API format (Export (API))');
  if (Object.keys(graph).length === 0) fail('has no nodes');
  const workflow: Workflow = {};
  for (const [id, value] of Object.entries(graph)) {
    const node = asRecord(value) ?? fail(`node ${id} is not an object`);
    if (typeof node.class_type !== 'string' || node.class_type === '') fail(`node ${id} has no class_type`);
    const inputs = asRecord(node.inputs) ?? fail(`node ${id} has no inputs object`);
    for (const [input, given] of Object.entries(inputs)) {
      if (!isInput(given)) fail(`node ${id} input ${input} is neither a value nor a [node id, output] link`);
    }
    const meta =
      node._meta === undefined ? undefined : (asRecord(node._meta) ?? fail(`node ${id} _meta is not an object`));
    if (meta?.title !== undefined && typeof meta.title !== 'string') fail(`node ${id} has a title that is not text`);
    workflow[id] = {
      class_type: node.class_type as string,
      inputs: inputs as Record<string, WorkflowInput>,
      ...(meta ? { _meta: meta as { title?: string } } : {}),
    };
  }
  for (const [id, node] of Object.entries(workflow)) {
    for (const [input, given] of Object.entries(node.inputs)) {
      if (isLink(given) && !workflow[given[0]])
        fail(`node ${id} input ${input} links to node ${given[0]}, which is missing`);
    }
    const title = node._meta?.title;
    if (title === undefined || !TITLES.has(title)) continue;
    for (const [valueName, slot] of Object.entries(SLOTS)) {
      if (slot.title === title && !slot.inputs.some((input) => input in node.inputs)) {
        fail(
          `node ${id} titled "${title}" (${node.class_type}) has none of ${slot.inputs.join(', ')} for ${valueName}`,
        );
      }
    }
    if (title === 'lora') {
      const passes =
        BYPASS[node.class_type] ?? fail(`node ${id} titled "lora" is a ${node.class_type}, not a LoRA loader`);
      for (const input of passes) {
        if (!isLink(node.inputs[input])) fail(`node ${id} titled "lora" has no link on its ${input} input`);
      }
    }
  }
  return workflow;
}

/** The workflow templates of a folder (`<name>.json`), by name; the catalog's own by default. */
export function loadWorkflows(dir: string | URL = DEFAULT_DIR): Record<string, Workflow> {
  const base = typeof dir === 'string' ? dir.replace(/\/*$/, '/') : dir;
  const workflows: Record<string, Workflow> = {};
  for (const file of readdirSync(base).sort()) {
    if (!file.endsWith('.json')) continue;
    const name = file.slice(0, -'.json'.length);
    const path = typeof base === 'string' ? `${base}${file}` : new URL(file, base);
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(path, 'utf8'));
    } catch (err) {
      throw new Error(
        `ComfyUI workflow ${name} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    workflows[name] = parseWorkflow(name, json);
  }
  return workflows;
}

/** Cuts a LoRA loader out: whatever read its outputs reads its inputs instead. */
function bypass(workflow: Workflow, id: string): void {
  const loader = workflow[id];
  if (!loader) return;
  const passes = BYPASS[loader.class_type] ?? [];
  for (const node of Object.values(workflow)) {
    for (const [input, given] of Object.entries(node.inputs)) {
      if (!isLink(given) || given[0] !== id) continue;
      const source = passes[given[1]];
      const through = source === undefined ? undefined : loader.inputs[source];
      if (through === undefined) {
        throw new ProviderError(`The LoRA node ${id} has no output ${given[1]} to pass through`, false, {
          kind: 'internal',
        });
      }
      node.inputs[input] = through;
    }
  }
  delete workflow[id];
}

/**
 * The workflow `name` with `values` in its titled nodes: a copy, ready for ComfyUI. Throws
 * `invalid_input` when the request needs a node the workflow lacks, or lacks what it needs.
 */
export function fillWorkflow(name: string, template: Workflow, values: Record<string, unknown>): Workflow {
  const workflow = structuredClone(template);
  const titled = (title: string) =>
    Object.entries(workflow).filter(([, node]) => node._meta?.title === title) as [string, WorkflowNode][];
  for (const [valueName, value] of Object.entries(values)) {
    if (value === undefined || value === null) continue;
    const slot = SLOTS[valueName];
    if (!slot) {
      throw new ProviderError(`No ComfyUI workflow node takes a value named ${valueName}`, false, { kind: 'internal' });
    }
    if (typeof value !== slot.type || (typeof value === 'number' && !Number.isFinite(value))) {
      throw new ProviderError(`The ComfyUI value ${valueName} is not a ${slot.type}`, false, { kind: 'internal' });
    }
    const nodes = titled(slot.title);
    const refusal = REQUIRED_NODES[valueName];
    if (nodes.length === 0 && refusal) {
      throw new ProviderError(`The ComfyUI workflow ${name} ${refusal}`, false, { kind: 'invalid_input' });
    }
    for (const [, node] of nodes) {
      for (const input of slot.inputs) if (input in node.inputs) node.inputs[input] = value as string | number;
    }
  }
  const given = (valueName: string) => values[valueName] !== undefined && values[valueName] !== null;
  if (!given('image') && titled('image').length > 0) {
    throw new ProviderError(`The ComfyUI workflow ${name} starts from an image, and none was given`, false, {
      kind: 'invalid_input',
    });
  }
  if (!given('lora_name')) for (const [id] of titled('lora')) bypass(workflow, id);
  return workflow;
}

// The extensions ComfyUI lists model files with (folder_paths.supported_pt_extensions).
const MODEL_EXTENSIONS = ['.safetensors', '.sft', '.ckpt', '.pt', '.pt2', '.pth', '.bin', '.pkl'];

/** The file name a LoRA URL ends in: the file ComfyUI loads from its models/loras folder. */
export function loraFileName(url: string): string {
  let name = '';
  try {
    name = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
  } catch {
    name = '';
  }
  const safe =
    !name.startsWith('.') &&
    !/[\\/]/.test(name) &&
    [...name].every((c) => c >= ' ') &&
    MODEL_EXTENSIONS.some((ext) => name.toLowerCase().endsWith(ext) && name.length > ext.length);
  if (!safe) {
    throw new ProviderError(
      "The LoRA URL must end in the LoRA's file name (such as style.safetensors): the ComfyUI server loads it by that name from its models/loras folder",
      false,
      { kind: 'invalid_input' },
    );
  }
  return name;
}

const multipleOf = (value: number, step: number) => Math.max(step, Math.round(value / step) * step);
const floorTo = (value: number, step: number) => Math.max(step, Math.floor(value / step) * step);

function ratioOf(aspectRatio: string): number {
  const [w, h] = aspectRatio.split(':').map(Number);
  return w && h && Number.isFinite(w / h) ? w / h : 1;
}

/** About one megapixel in the ratio asked for, in multiples of 64 (SDXL's own sizes: 1344x768 for 16:9). */
export function sizeForRatio(aspectRatio: string): { width: number; height: number } {
  const ratio = ratioOf(aspectRatio);
  const area = 1024 * 1024;
  return { width: multipleOf(Math.sqrt(area * ratio), 64), height: multipleOf(Math.sqrt(area / ratio), 64) };
}

/**
 * A video's size: the short side is the resolution ('720p'), both sides rounded down to multiples
 * of 32 as Wan's latents need (720p 16:9 is 1280x704, 480p is 832x480).
 */
export function videoSize(resolution: string, aspectRatio: string): { width: number; height: number } {
  const short = Number.parseInt(resolution, 10) || 480;
  const ratio = ratioOf(aspectRatio);
  const long = short * (ratio >= 1 ? ratio : 1 / ratio);
  return ratio >= 1
    ? { width: floorTo(long, 32), height: floorTo(short, 32) }
    : { width: floorTo(short, 32), height: floorTo(long, 32) };
}

/** Frames for a duration: 4n+1, as Wan's temporal compression takes them (5 s at 24 fps is 121). */
export function framesFor(durationSeconds: number, fps: number): number {
  return 4 * Math.max(0, Math.round((durationSeconds * fps) / 4)) + 1;
}

const refuse = (message: string) => new ProviderError(message, false, { kind: 'invalid_input' });

/** Input mappings of ComfyUI workflows, by the name a catalog route gives. */
export const COMFYUI_MAPPINGS = {
  /** text-to-image and image-to-image: a size from the ratio unless the image sets it. */
  image: mappingFor('image', (request) => {
    if (request.references.length > 1) throw refuse('The ComfyUI workflows take one input image');
    const [image] = request.references;
    // An edit without a size keeps its image's (the workflow's size node is left at 0x0).
    const size = request.size ?? (image ? null : sizeForRatio(request.aspectRatio));
    return {
      prompt: request.prompt,
      negative_prompt: request.negativePrompt,
      seed: request.seed,
      steps: request.steps,
      ...(size ? { width: size.width, height: size.height } : {}),
      ...(image ? { image } : {}),
      ...(request.lora ? { lora_name: loraFileName(request.lora.url), lora_strength: 1 } : {}),
    };
  }),
  /**
   * image-to-video: size from the resolution, frames from the duration unless given; a LoRA's
   * `transformer` is not read (the workflow has one model, which the LoRA applies to).
   */
  video: mappingFor('video', (request) => {
    if (request.lastFrame) throw refuse('The ComfyUI video workflow takes no last frame');
    if (request.loras.length > 1) throw refuse('The ComfyUI video workflow takes one LoRA');
    const [lora] = request.loras;
    const size = videoSize(request.resolution, request.aspectRatio);
    return {
      prompt: request.prompt,
      negative_prompt: request.negativePrompt,
      ...(request.seed !== null ? { seed: request.seed } : {}),
      steps: request.steps,
      width: size.width,
      height: size.height,
      frames: request.frames ?? framesFor(request.durationSeconds, request.fps),
      fps: request.fps,
      ...(request.firstFrame ? { image: request.firstFrame } : {}),
      ...(lora ? { lora_name: loraFileName(lora.url), lora_strength: lora.scale } : {}),
    };
  }),
} satisfies Record<string, Mapping>;

// Whether an item has a usable route: a configured vendor that serves it, the service's own work,
// or the simulator where the operator lets it stand in (PROVIDERS=simulator, SIMULATOR_MODELS, the
// local start). What has none is refused before any charge, so no simulated result is sold as real.

import type { ModelRoute } from '../catalog/models.ts';
import { OperationName } from '../catalog/operation-names.ts';
import { AppError } from '../lib/errors.ts';
import { scaleCharge } from '../lib/multiplier.ts';
import type {
  AcceptedRoutes,
  ExecutableItem,
  ExecutionContext,
  GenerationPlan,
  LiveRules,
  Operation,
  VendorWork,
} from './types.ts';

/** A model as the model list names it (its kind and id): what SIMULATOR_MODELS entries name. */
export interface ListedModel {
  kind: string;
  model: string | null;
}

// The model list's kind of each operation's model (GET /api/v1/models).
const OPERATION_KINDS: Record<string, string> = {
  [OperationName.imageGenerate]: 'image',
  [OperationName.imageEdit]: 'edit',
  [OperationName.imageFace]: 'face',
  [OperationName.videoGenerate]: 'video',
  [OperationName.videoMotion]: 'video',
  [OperationName.videoLora]: 'video',
  [OperationName.videoLipsync]: 'lipsync',
  [OperationName.videoReference]: 'reference_video',
  [OperationName.videoTalkingHead]: 'talking_head',
  [OperationName.videoUpscale]: 'upscale',
  [OperationName.musicGenerate]: 'music',
  [OperationName.model3dGenerate]: 'model_3d',
  [OperationName.textGenerate]: 'text',
  [OperationName.speechTts]: 'voice',
  [OperationName.voiceCreate]: 'voice',
};

/** The model an item is made with, as the model list names it. */
export function listedModelOf(operation: string, item: ExecutableItem): ListedModel {
  // Speech is listed by voice; an influencer video's frames by the influencer image model.
  if (operation === OperationName.speechTts)
    return { kind: 'voice', model: String(item.request.voice_id ?? item.model) };
  if (operation === OperationName.influencerVideo) {
    return item.input.part === 'video'
      ? { kind: 'video', model: 'influencer-video' }
      : { kind: 'image', model: item.model };
  }
  return { kind: OPERATION_KINDS[operation] ?? operation, model: item.model };
}

/** How an item would be made: at a vendor, by the service itself, or by the simulator in a vendor's place. */
export type ItemRoute = 'vendor' | 'own' | 'simulator';

/** Whether `item` is the service's own work (its operation's `local` step), given its vendor work. */
export function isOwnWork(operation: Operation, item: ExecutableItem, work: VendorWork | undefined): boolean {
  return operation.local !== undefined && (operation.ownWork?.(item, work) ?? true);
}

/** Where an item would go now: a configured vendor's route, the service's own work, or the simulator. */
export function itemRoute(
  ctx: ExecutionContext,
  operationName: string,
  operation: Operation | undefined,
  item: ExecutableItem,
): ItemRoute {
  if (!operation) return 'own';
  const work = vendorWork(ctx, operationName, operation, item);
  if (work && ctx.providers.candidates(work.routes, work.request).length > 0) return 'vendor';
  return isOwnWork(operation, item, work) ? 'own' : 'simulator';
}

/**
 * The operator's list for an item's model, or undefined for the catalog's: the one in force when
 * the item was accepted (kept on it), else (an item being accepted) the one in force now.
 */
function operatorRoutes(
  live: LiveRules,
  operationName: string,
  item: ExecutableItem,
): readonly ModelRoute[] | undefined {
  const accepted = item.acceptedRoutes;
  if (accepted !== undefined && accepted !== null) return accepted === 'catalog' ? undefined : accepted;
  const { kind, model } = listedModelOf(operationName, item);
  return model === null ? undefined : live.routesOf(kind, model);
}

/** The routes an item accepted now keeps for its runs: the operator's list for its model, or the catalog's. */
export function acceptedRoutesOf(live: LiveRules, operationName: string, item: ExecutableItem): AcceptedRoutes {
  return operatorRoutes(live, operationName, { ...item, acceptedRoutes: undefined }) ?? 'catalog';
}

/**
 * An item's vendor work (the operation's `vendor` step) on the routes that serve its model: the
 * operator's live list in place of the catalog's when there was one as the item was accepted (kept
 * on it, so a change applies to requests accepted after it), the disabled routes left out, and only
 * the vendor the request asked for where it asked for one.
 */
export function vendorWork(
  ctx: ExecutionContext,
  operationName: string,
  operation: Operation,
  item: ExecutableItem,
): VendorWork | undefined {
  const work = operation.vendor?.(ctx, item);
  if (!work) return undefined;
  const live = operatorRoutes(ctx.services.live, operationName, item);
  const routes = (live ?? work.routes).filter(
    (route) => route.enabled !== false && (work.provider === undefined || route.provider === work.provider),
  );
  return live === undefined && routes.length === work.routes.length ? work : { ...work, routes };
}

/** Whether the simulator may make `item` (of `operationName`) in place of its model's vendor. */
export function simulatorMayMake(ctx: ExecutionContext, operationName: string, item: ExecutableItem): boolean {
  const { kind, model } = listedModelOf(operationName, item);
  return ctx.simulatorMayServe(kind, model);
}

/** The refusal of a model no configured vendor serves and the simulator may not stand in for. */
export function modelUnavailable(listed: ListedModel, outcome = 'nothing was charged'): AppError {
  const name = listed.model ?? listed.kind;
  const message =
    `Model '${name}' (${listed.kind}) is not available on this service: no configured provider serves it ` +
    `(${outcome}). Choose a model that GET /api/v1/models lists as available`;
  return new AppError('model_unavailable', message, [{ field: 'model', message: `'${name}' is not available` }]);
}

/**
 * Refuses a plan (before anything is written or charged) when one of its items has no usable
 * route: no configured vendor serves it, it is not the service's own work, and the simulator may
 * not stand in for its model.
 */
export function refuseUnservedModels(
  ctx: ExecutionContext,
  operations: Record<string, Operation>,
  plan: GenerationPlan,
  teamId: string,
): void {
  const operation = operations[plan.operation];
  plannedItems(plan, teamId).forEach((item) => {
    if (itemRoute(ctx, plan.operation, operation, item) !== 'simulator') return;
    if (simulatorMayMake(ctx, plan.operation, item)) return;
    throw modelUnavailable(listedModelOf(plan.operation, item));
  });
}

/** The items of a plan as they would run (before any is written). */
export function plannedItems(plan: GenerationPlan, teamId: string): ExecutableItem[] {
  return plan.items.map((planned, position) => ({
    id: `planned-${position}`,
    generationId: 'planned',
    position,
    type: planned.type,
    model: planned.model ?? plan.model,
    teamId,
    request: plan.input,
    input: planned.input ?? {},
    attempt: 1,
  }));
}

/**
 * The operator's live rules, applied to a plan before a quote, a charge or a row: a model switched
 * off is refused as unavailable (503 `model_unavailable`), one the team's rules deny is 403, and the
 * team's price multiplier scales each item's price (rounded up to a whole credit).
 */
export function applyLiveRules(live: LiveRules, plan: GenerationPlan, teamId: string): GenerationPlan {
  const rules = live.teamRules(teamId);
  for (const item of plannedItems(plan, teamId)) {
    const listed = listedModelOf(plan.operation, item);
    if (listed.model === null) continue;
    if (live.isSwitchedOff(listed.kind, listed.model)) {
      throw new AppError(
        'model_unavailable',
        `Model '${listed.model}' (${listed.kind}) is not available on this service: the operator switched it off ` +
          '(nothing was charged). Choose a model that GET /api/v1/models lists as available',
        [{ field: 'model', message: `'${listed.model}' is not available` }],
      );
    }
    const key = `${listed.kind}:${listed.model}`;
    const allowed =
      !rules.deniedModels.includes(key) && (rules.allowedModels.length === 0 || rules.allowedModels.includes(key));
    if (!allowed) {
      throw new AppError('forbidden', `Model '${listed.model}' (${listed.kind}) is not open to this team`, [
        { field: 'model', message: `'${listed.model}' is not open to this team` },
      ]);
    }
  }
  const multiplier = rules.priceMultiplier;
  if (multiplier === 1) return plan;
  return { ...plan, items: plan.items.map((item) => ({ ...item, price: scaleCharge(item.price, multiplier) })) };
}

// A route's mapping turns a provider-neutral request into one vendor endpoint's input. Each reads
// one kind of request: a route whose mapping is of another kind is a catalog mistake, refused.
import { ProviderError, type VendorRequest } from './types.ts';

/** Turns a provider-neutral request into one endpoint's input. */
export type Mapping = (request: VendorRequest) => Record<string, unknown>;

/** A mapping of the requests of one kind. */
export function mappingFor<K extends VendorRequest['kind']>(
  kind: K,
  map: (request: Extract<VendorRequest, { kind: K }>) => Record<string, unknown>,
): Mapping {
  return (request) => {
    if (request.kind !== kind) {
      throw new ProviderError(`A ${kind} mapping was given a ${request.kind} request`, false, { kind: 'internal' });
    }
    return map(request as Extract<VendorRequest, { kind: K }>);
  };
}

/** `{seed}` when the request has one: without, the vendor draws its own (no fixed seed is sent). */
export function seedOf(request: { seed: number | null }): { seed?: number } {
  return request.seed === null ? {} : { seed: request.seed };
}

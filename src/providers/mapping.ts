// A route's mapping turns a provider-neutral request into one vendor endpoint's input. Each reads
// one kind of request: a route whose mapping is of another kind is a catalog mistake, refused.
import { ProviderError, type VendorRequest } from './types.ts';

/** Turns a provider-neutral request into one endpoint's input. */
export type Mapping = (request: VendorRequest) => Record<string, unknown>;

/** A request of one kind. */
type RequestOf<K extends VendorRequest['kind']> = Extract<VendorRequest, { kind: K }>;

/** Whether `request` is of `kind` (a check TypeScript does not draw from a generic kind by itself). */
function isOfKind<K extends VendorRequest['kind']>(request: VendorRequest, kind: K): request is RequestOf<K> {
  return request.kind === kind;
}

/**
 * `request` as a request of `kind`; a request of another kind (or none) is a mistake of ours, not
 * the user's: refused as internal, `reader` named.
 */
export function requestOfKind<K extends VendorRequest['kind']>(
  request: VendorRequest | undefined,
  kind: K,
  reader: string,
): RequestOf<K> {
  if (!request || !isOfKind(request, kind)) {
    const given = request ? `a ${request.kind} request` : 'no request';
    throw new ProviderError(`${reader} was given ${given}`, false, { kind: 'internal' });
  }
  return request;
}

/** A mapping of the requests of one kind. */
export function mappingFor<K extends VendorRequest['kind']>(
  kind: K,
  map: (request: RequestOf<K>) => Record<string, unknown>,
): Mapping {
  return (request) => map(requestOfKind(request, kind, `A ${kind} mapping`));
}

/** `{seed}` when the request has one: without, the vendor draws its own (no fixed seed is sent). */
export function seedOf(request: { seed: number | null }): { seed?: number } {
  return request.seed === null ? {} : { seed: request.seed };
}

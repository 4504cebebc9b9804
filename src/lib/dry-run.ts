// `Prefer: dry-run` (RFC 7240's header, with a preference of our own): a generation request that is
// validated and priced, and answers its quote instead of doing anything.
import type { FastifyRequest } from 'fastify';

/** The preference token, and the header that says it was applied. */
export const DRY_RUN = 'dry-run';

/** Whether the request asks for a dry run (`Prefer: dry-run`, among other preferences or not). */
export function isDryRun(request: Pick<FastifyRequest, 'headers'>): boolean {
  const prefer = request.headers.prefer;
  const values = Array.isArray(prefer) ? prefer : prefer === undefined ? [] : [prefer];
  return values.some((value) =>
    value.split(',').some((token) => token.split(';')[0]?.trim().toLowerCase() === DRY_RUN),
  );
}

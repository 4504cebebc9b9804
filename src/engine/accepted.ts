// The answer of an asynchronous generation endpoint: the generation it created, its status and
// the expected wait. An idempotent replay sends the stored JSON text back, so the field order
// here is part of the answer's bytes.

import type { CreatedGeneration } from './types.ts';

/** The answer of an endpoint that reports no price. */
export const acceptedAnswer = (created: CreatedGeneration) => ({
  generation_id: created.id,
  status: created.status,
  estimated_time: created.estimatedSeconds,
});

/** The answer with its price; the endpoint's own fields (`extra`) come between the status and the wait. */
export function acceptedWithCredits<Extra extends object>(created: CreatedGeneration, extra: Extra) {
  const { generation_id, status, estimated_time } = acceptedAnswer(created);
  return { generation_id, status, ...extra, estimated_time, credits_used: created.creditsCharged };
}

import type { Queryable } from '../../db/pool.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { type InfluencerRow, selectInfluencer } from './sql.ts';

/** The team's influencer (404 when unknown or another team's). */
export async function requireInfluencer(db: Queryable, teamId: string, id: string): Promise<InfluencerRow> {
  const row = await selectInfluencer(db, id);
  if (!row || row.team_id !== teamId) throw notFound('Influencer', id);
  return row;
}

/** The team's influencer, which must have finished training (400 `influencer_not_ready`). */
export async function requireReadyInfluencer(db: Queryable, teamId: string, id: string): Promise<InfluencerRow> {
  const row = await requireInfluencer(db, teamId, id);
  if (row.training_status !== 'completed') {
    throw new AppError(
      'influencer_not_ready',
      `Influencer '${id}' is still ${row.training_status}; wait until ready_for_generation is true`,
    );
  }
  return row;
}

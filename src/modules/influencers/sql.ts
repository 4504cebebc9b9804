import type { Queryable } from '../../db/pool.ts';

export interface InfluencerRow {
  id: string;
  team_id: string;
  workspace_id: string | null;
  name: string;
  age: number;
  face_image: string;
  best_full_image: string;
  training_status: 'training' | 'completed' | 'failed';
  created_at: Date;
}

const COLUMNS = 'id, team_id, workspace_id, name, age, face_image, best_full_image, training_status, created_at';

export async function selectInfluencer(db: Queryable, id: string): Promise<InfluencerRow | undefined> {
  const { rows } = await db.query<InfluencerRow>(`select ${COLUMNS} from influencers where id = $1::text`, [id]);
  return rows[0];
}

export async function selectInfluencersOfTeam(db: Queryable, teamId: string): Promise<InfluencerRow[]> {
  const { rows } = await db.query<InfluencerRow>(
    `select ${COLUMNS} from influencers where team_id = $1::text order by created_at desc, id desc`,
    [teamId],
  );
  return rows;
}

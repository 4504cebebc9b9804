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

export async function insertInfluencer(
  db: Queryable,
  i: {
    id: string;
    teamId: string;
    workspaceId: string | null;
    name: string;
    age: number;
    imageUrls: string[];
    faceImage: string;
    bestFullImage: string;
    analysis: unknown;
    generationId: string;
  },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `insert into influencers
       (id, team_id, workspace_id, name, age, image_urls, face_image, best_full_image, analysis, generation_id)
     values ($1::text, $2::text, $3::text, $4::text, $5::int, $6::jsonb, $7::text, $8::text, $9::jsonb, $10::text)
     on conflict (team_id, name) do nothing`,
    [
      i.id,
      i.teamId,
      i.workspaceId,
      i.name,
      i.age,
      JSON.stringify(i.imageUrls),
      i.faceImage,
      i.bestFullImage,
      JSON.stringify(i.analysis),
      i.generationId,
    ],
  );
  return (rowCount ?? 0) > 0;
}

/** Lower-cased names already used in the team. */
export async function selectInfluencerNames(db: Queryable, teamId: string): Promise<Set<string>> {
  const { rows } = await db.query<{ name: string }>(
    'select lower(name) as name from influencers where team_id = $1::text',
    [teamId],
  );
  return new Set(rows.map((r) => r.name));
}

export async function setTrainingStatus(db: Queryable, id: string, status: 'completed' | 'failed'): Promise<void> {
  await db.query(
    `update influencers set training_status = $2::text where id = $1::text and training_status = 'training'`,
    [id, status],
  );
}

/** The frames of an influencer video (its first_frame and last_frame items): status and URL. */
export async function selectVideoFrames(
  db: Queryable,
  generationId: string,
): Promise<Array<{ part: string; status: string; url: string | null }>> {
  const { rows } = await db.query<{ part: string; status: string; url: string | null }>(
    `select input ->> 'part' as part, status, url from generation_items
     where generation_id = $1::text and input ->> 'part' in ('first_frame', 'last_frame')`,
    [generationId],
  );
  return rows;
}

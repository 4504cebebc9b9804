import type { Queryable } from '../../db/pool.ts';

export interface TrackRow {
  id: string;
  team_id: string;
  workspace_id: string | null;
  generation_id: string;
  title: string;
  style: string;
  url: string;
  status: string;
  created_at: Date;
  /** When its file is deleted (its generation's expires_at); null: kept. */
  expires_at: Date | null;
}

const COLUMNS = `t.id, t.team_id, t.workspace_id, t.generation_id, t.title, t.style, t.url, t.status, t.created_at,
  (select g.expires_at from generations g where g.id = t.generation_id) as expires_at`;

export async function insertTrack(
  db: Queryable,
  t: {
    id: string;
    teamId: string;
    workspaceId: string | null;
    generationId: string;
    title: string;
    style: string;
    url: string;
    durationSeconds: number | null;
  },
): Promise<void> {
  await db.query(
    `insert into music_tracks (id, team_id, workspace_id, generation_id, title, style, url, duration_seconds)
     values ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::numeric)
     on conflict (generation_id) do nothing`,
    [t.id, t.teamId, t.workspaceId, t.generationId, t.title, t.style, t.url, t.durationSeconds],
  );
}

export async function selectTrack(db: Queryable, id: string): Promise<TrackRow | undefined> {
  const { rows } = await db.query<TrackRow>(`select ${COLUMNS} from music_tracks t where t.id = $1::text`, [id]);
  return rows[0];
}

export async function selectTracksOfTeam(
  db: Queryable,
  teamId: string,
  workspaceId: string | null,
): Promise<TrackRow[]> {
  const { rows } = await db.query<TrackRow>(
    `select ${COLUMNS} from music_tracks t
     where t.team_id = $1::text and ($2::text is null or t.workspace_id = $2::text)
     order by t.created_at desc, t.id desc`,
    [teamId, workspaceId],
  );
  return rows;
}

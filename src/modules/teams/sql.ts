import type { Queryable } from '../../db/pool.ts';

export interface TeamRow {
  id: string;
  name: string;
  credits: number;
  max_concurrent_items: number | null;
  running_items: number;
  price_multiplier: string;
  allowed_models: string[];
  denied_models: string[];
  created_at: Date;
}

const COLUMNS =
  'id, name, credits, max_concurrent_items, running_items, price_multiplier::text, allowed_models, denied_models, created_at';

export async function insertTeam(db: Queryable, id: string, name: string, webhookSecret: string): Promise<TeamRow> {
  const { rows } = await db.query<TeamRow>(
    `insert into teams (id, name, webhook_secret)
     values ($1::text, $2::text, $3::text)
     returning ${COLUMNS}`,
    [id, name, webhookSecret],
  );
  return rows[0] as TeamRow;
}

export async function selectTeam(db: Queryable, id: string): Promise<TeamRow | undefined> {
  const { rows } = await db.query<TeamRow>(`select ${COLUMNS} from teams where id = $1::text`, [id]);
  return rows[0];
}

/** Newest first, keyset-paginated on the time-ordered id. */
export async function selectTeams(db: Queryable, limit: number, before: string | undefined): Promise<TeamRow[]> {
  const { rows } = await db.query<TeamRow>(
    `select ${COLUMNS} from teams
     where $2::text is null or id < $2::text
     order by id desc
     limit $1::int`,
    [limit, before ?? null],
  );
  return rows;
}

export async function countTeams(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>('select count(*)::int as n from teams');
  return rows[0]?.n ?? 0;
}

/** Sets the team's own cap of items running at once (null: the service's default); the row, or undefined. */
export async function updateTeamCap(db: Queryable, id: string, cap: number | null): Promise<TeamRow | undefined> {
  const { rows } = await db.query<TeamRow>(
    `update teams set max_concurrent_items = $2::int where id = $1::text returning ${COLUMNS}`,
    [id, cap],
  );
  return rows[0];
}

import type { Queryable } from '../../db/pool.ts';

export type AssetKind = 'outfit' | 'location' | 'element';

export interface ProjectRow {
  id: string;
  team_id: string;
  workspace_id: string | null;
  name: string;
  description: string | null;
  aspect_ratio: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface SceneRow {
  id: string;
  project_id: string;
  position: number;
  title: string;
  description: string | null;
}

export interface SceneSummaryRow {
  id: string;
  project_id: string;
  position: number;
  title: string;
  first_frame_url: string | null;
  video_url: string | null;
}

export interface ShotRow {
  id: string;
  scene_id: string;
  position: number;
  description: string | null;
  duration_seconds: number | null;
  camera: string | null;
}

export interface FrameRow {
  id: string;
  shot_id: string;
  position: number;
}

export interface FrameImageRow {
  frame_id: string;
  version: number;
  url: string;
  prompt: string | null;
  selected: boolean;
  created_at: Date;
}

export interface ShotVideoRow {
  shot_id: string;
  version: number;
  url: string;
  duration_seconds: number | null;
  prompt: string | null;
  selected: boolean;
  created_at: Date;
}

export interface AssetRow {
  id: string;
  kind: AssetKind;
  position: number;
  name: string;
  description: string | null;
  image_urls: string[];
}

/** The rows of one project as the import inserts them (timestamps come from the database). */
export interface NewGraph {
  scenes: Omit<SceneRow, 'project_id'>[];
  shots: ShotRow[];
  frames: FrameRow[];
  images: Omit<FrameImageRow, 'created_at'>[];
  videos: Omit<ShotVideoRow, 'created_at'>[];
  assets: AssetRow[];
}

// Unique constraints an import can break with the data it was given.
export const CONSTRAINTS = {
  oneSelectedImage: 'storyboard_frame_images_one_selected',
  oneSelectedVideo: 'storyboard_shot_videos_one_selected',
  assetName: 'storyboard_assets_name_key',
} as const;

const PROJECT_COLUMNS = 'id, team_id, workspace_id, name, description, aspect_ratio, created_at, updated_at';

export async function insertProject(
  db: Queryable,
  p: {
    id: string;
    teamId: string;
    workspaceId: string | null;
    name: string;
    description: string | null;
    aspectRatio: string | null;
  },
): Promise<void> {
  await db.query(
    `insert into storyboard_projects (id, team_id, workspace_id, name, description, aspect_ratio)
     values ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text)`,
    [p.id, p.teamId, p.workspaceId, p.name, p.description, p.aspectRatio],
  );
}

// The graph goes in with one statement per table: each takes all its rows as one jsonb array.

export async function insertScenes(db: Queryable, projectId: string, rows: NewGraph['scenes']): Promise<void> {
  await db.query(
    `insert into storyboard_scenes (id, project_id, position, title, description)
     select r.id, $1::text, r.position, r.title, r.description
     from jsonb_to_recordset($2::jsonb) as r (id text, position integer, title text, description text)`,
    [projectId, JSON.stringify(rows)],
  );
}

export async function insertShots(db: Queryable, rows: NewGraph['shots']): Promise<void> {
  await db.query(
    `insert into storyboard_shots (id, scene_id, position, description, duration_seconds, camera)
     select r.id, r.scene_id, r.position, r.description, r.duration_seconds, r.camera
     from jsonb_to_recordset($1::jsonb) as r (
       id text, scene_id text, position integer, description text, duration_seconds double precision, camera text
     )`,
    [JSON.stringify(rows)],
  );
}

export async function insertFrames(db: Queryable, rows: NewGraph['frames']): Promise<void> {
  await db.query(
    `insert into storyboard_frames (id, shot_id, position)
     select r.id, r.shot_id, r.position
     from jsonb_to_recordset($1::jsonb) as r (id text, shot_id text, position integer)`,
    [JSON.stringify(rows)],
  );
}

export async function insertFrameImages(db: Queryable, rows: NewGraph['images']): Promise<void> {
  await db.query(
    `insert into storyboard_frame_images (frame_id, version, url, prompt, selected)
     select r.frame_id, r.version, r.url, r.prompt, r.selected
     from jsonb_to_recordset($1::jsonb) as r (frame_id text, version integer, url text, prompt text, selected boolean)`,
    [JSON.stringify(rows)],
  );
}

export async function insertShotVideos(db: Queryable, rows: NewGraph['videos']): Promise<void> {
  await db.query(
    `insert into storyboard_shot_videos (shot_id, version, url, duration_seconds, prompt, selected)
     select r.shot_id, r.version, r.url, r.duration_seconds, r.prompt, r.selected
     from jsonb_to_recordset($1::jsonb) as r (
       shot_id text, version integer, url text, duration_seconds double precision, prompt text, selected boolean
     )`,
    [JSON.stringify(rows)],
  );
}

export async function insertAssets(db: Queryable, projectId: string, rows: NewGraph['assets']): Promise<void> {
  await db.query(
    `insert into storyboard_assets (id, project_id, kind, position, name, description, image_urls)
     select r.id, $1::text, r.kind, r.position, r.name, r.description, r.image_urls
     from jsonb_to_recordset($2::jsonb) as r (
       id text, kind text, position integer, name text, description text, image_urls jsonb
     )`,
    [projectId, JSON.stringify(rows)],
  );
}

export async function selectProjectOfTeam(
  db: Queryable,
  teamId: string,
  projectId: string,
): Promise<ProjectRow | undefined> {
  const { rows } = await db.query<ProjectRow>(
    `select ${PROJECT_COLUMNS} from storyboard_projects where id = $1::text and team_id = $2::text`,
    [projectId, teamId],
  );
  return rows[0];
}

/** Newest first; `workspaceId` null means every project of the team. */
export async function selectProjectsOfTeam(
  db: Queryable,
  teamId: string,
  workspaceId: string | null,
): Promise<ProjectRow[]> {
  const { rows } = await db.query<ProjectRow>(
    `select ${PROJECT_COLUMNS} from storyboard_projects
     where team_id = $1::text and ($2::text is null or workspace_id = $2::text)
     order by created_at desc, id desc`,
    [teamId, workspaceId],
  );
  return rows;
}

/**
 * Every scene of the given projects by position, each with its thumbnail (the current image of its
 * first frame that has one) and its video (the current video of its first shot that has one).
 */
export async function selectSceneSummaries(db: Queryable, projectIds: string[]): Promise<SceneSummaryRow[]> {
  const { rows } = await db.query<SceneSummaryRow>(
    `select sc.id, sc.project_id, sc.position, sc.title,
       (select img.url
        from storyboard_shots sh
        join storyboard_frames fr on fr.shot_id = sh.id
        cross join lateral (
          select fi.url from storyboard_frame_images fi
          where fi.frame_id = fr.id
          order by fi.selected desc, fi.version desc
          limit 1
        ) img
        where sh.scene_id = sc.id
        order by sh.position, fr.position
        limit 1) as first_frame_url,
       (select vid.url
        from storyboard_shots sh
        cross join lateral (
          select sv.url from storyboard_shot_videos sv
          where sv.shot_id = sh.id
          order by sv.selected desc, sv.version desc
          limit 1
        ) vid
        where sh.scene_id = sc.id
        order by sh.position
        limit 1) as video_url
     from storyboard_scenes sc
     where sc.project_id = any($1::text[])
     order by sc.project_id, sc.position`,
    [projectIds],
  );
  return rows;
}

export async function selectScenes(db: Queryable, projectId: string): Promise<SceneRow[]> {
  const { rows } = await db.query<SceneRow>(
    `select id, project_id, position, title, description
     from storyboard_scenes where project_id = $1::text
     order by position`,
    [projectId],
  );
  return rows;
}

/** The project's shots, by position within each scene. */
export async function selectShots(db: Queryable, projectId: string): Promise<ShotRow[]> {
  const { rows } = await db.query<ShotRow>(
    `select sh.id, sh.scene_id, sh.position, sh.description, sh.duration_seconds, sh.camera
     from storyboard_shots sh
     join storyboard_scenes sc on sc.id = sh.scene_id
     where sc.project_id = $1::text
     order by sh.scene_id, sh.position`,
    [projectId],
  );
  return rows;
}

/** The project's frames, by position within each shot. */
export async function selectFrames(db: Queryable, projectId: string): Promise<FrameRow[]> {
  const { rows } = await db.query<FrameRow>(
    `select fr.id, fr.shot_id, fr.position
     from storyboard_frames fr
     join storyboard_shots sh on sh.id = fr.shot_id
     join storyboard_scenes sc on sc.id = sh.scene_id
     where sc.project_id = $1::text
     order by fr.shot_id, fr.position`,
    [projectId],
  );
  return rows;
}

/** The project's image versions, oldest first within each frame. */
export async function selectFrameImages(db: Queryable, projectId: string): Promise<FrameImageRow[]> {
  const { rows } = await db.query<FrameImageRow>(
    `select fi.frame_id, fi.version, fi.url, fi.prompt, fi.selected, fi.created_at
     from storyboard_frame_images fi
     join storyboard_frames fr on fr.id = fi.frame_id
     join storyboard_shots sh on sh.id = fr.shot_id
     join storyboard_scenes sc on sc.id = sh.scene_id
     where sc.project_id = $1::text
     order by fi.frame_id, fi.version`,
    [projectId],
  );
  return rows;
}

/** The project's video versions, oldest first within each shot. */
export async function selectShotVideos(db: Queryable, projectId: string): Promise<ShotVideoRow[]> {
  const { rows } = await db.query<ShotVideoRow>(
    `select sv.shot_id, sv.version, sv.url, sv.duration_seconds, sv.prompt, sv.selected, sv.created_at
     from storyboard_shot_videos sv
     join storyboard_shots sh on sh.id = sv.shot_id
     join storyboard_scenes sc on sc.id = sh.scene_id
     where sc.project_id = $1::text
     order by sv.shot_id, sv.version`,
    [projectId],
  );
  return rows;
}

/** The project's outfits, locations and elements, by position within each kind. */
export async function selectAssets(db: Queryable, projectId: string): Promise<AssetRow[]> {
  const { rows } = await db.query<AssetRow>(
    `select id, kind, position, name, description, image_urls
     from storyboard_assets where project_id = $1::text
     order by kind, position`,
    [projectId],
  );
  return rows;
}

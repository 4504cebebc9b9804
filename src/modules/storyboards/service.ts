import pg from 'pg';
import type { Queryable } from '../../db/pool.ts';
import { withTransaction } from '../../db/pool.ts';
import { AppError, type ErrorDetail, invalidField, notFound } from '../../lib/errors.ts';
import { looksLikeId, newId } from '../../lib/ids.ts';
import { getTeam } from '../teams/service.ts';
import { resolveWorkspace } from '../workspaces/service.ts';
import { LIMITS, type StoryboardImport, type StoryboardProject, type StoryboardSummary } from './schemas.ts';
import * as sql from './sql.ts';

const ASSET_LISTS = [
  ['outfit', 'outfits'],
  ['location', 'locations'],
  ['element', 'elements'],
] as const;

// ---- import ----------------------------------------------------------------------------------------

/** Gives every node of the imported graph its id, position or version, as the rows to insert. */
function flatten(input: StoryboardImport): sql.NewGraph {
  const graph: sql.NewGraph = { scenes: [], shots: [], frames: [], images: [], videos: [], assets: [] };
  for (const [sceneIndex, scene] of (input.scenes ?? []).entries()) {
    const sceneId = newId('scene');
    graph.scenes.push({
      id: sceneId,
      position: sceneIndex + 1,
      title: scene.title,
      description: scene.description ?? null,
    });
    for (const [shotIndex, shot] of (scene.shots ?? []).entries()) {
      const shotId = newId('shot');
      graph.shots.push({
        id: shotId,
        scene_id: sceneId,
        position: shotIndex + 1,
        description: shot.description ?? null,
        duration_seconds: shot.duration_seconds ?? null,
        camera: shot.camera ?? null,
      });
      for (const [frameIndex, frame] of (shot.frames ?? []).entries()) {
        const frameId = newId('frame');
        graph.frames.push({ id: frameId, shot_id: shotId, position: frameIndex + 1 });
        for (const [i, image] of (frame.image_versions ?? []).entries()) {
          graph.images.push({
            frame_id: frameId,
            version: i + 1,
            url: image.url,
            prompt: image.prompt ?? null,
            selected: image.selected ?? false,
          });
        }
      }
      for (const [i, video] of (shot.video_versions ?? []).entries()) {
        graph.videos.push({
          shot_id: shotId,
          version: i + 1,
          url: video.url,
          duration_seconds: video.duration_seconds ?? null,
          prompt: video.prompt ?? null,
          selected: video.selected ?? false,
        });
      }
    }
  }
  for (const [kind, field] of ASSET_LISTS) {
    for (const [i, asset] of (input[field] ?? []).entries()) {
      graph.assets.push({
        id: newId(kind === 'outfit' ? 'outf' : kind === 'location' ? 'loc' : 'elem'),
        kind,
        position: i + 1,
        name: asset.name,
        description: asset.description ?? null,
        image_urls: asset.image_urls ?? [],
      });
    }
  }
  return graph;
}

function checkTotals(graph: sql.NewGraph): void {
  const totals = [
    ['scenes[].shots', graph.shots.length, LIMITS.totalShots],
    ['scenes[].shots[].frames', graph.frames.length, LIMITS.totalFrames],
    ['scenes[].shots[].frames[].image_versions', graph.images.length, LIMITS.totalImageVersions],
    ['scenes[].shots[].video_versions', graph.videos.length, LIMITS.totalVideoVersions],
  ] as const;
  const details: ErrorDetail[] = [];
  for (const [field, count, limit] of totals) {
    if (count > limit) details.push({ field, message: `a project holds at most ${limit} in all (got ${count})` });
  }
  if (details.length > 0) {
    const summary = details.map((d) => `${d.field}: ${d.message}`).join('; ');
    throw new AppError('invalid_request', `Project too large: ${summary}`, details);
  }
}

/** The first place in the input that breaks `constraint`, as the 400 to answer with. */
function constraintError(input: StoryboardImport, constraint: string): AppError | undefined {
  const scenes = input.scenes ?? [];
  if (constraint === sql.CONSTRAINTS.oneSelectedImage) {
    for (const [s, scene] of scenes.entries()) {
      for (const [t, shot] of (scene.shots ?? []).entries()) {
        for (const [f, frame] of (shot.frames ?? []).entries()) {
          if ((frame.image_versions ?? []).filter((v) => v.selected).length > 1) {
            return invalidField(
              `scenes[${s}].shots[${t}].frames[${f}].image_versions`,
              'at most one image version of a frame can be selected',
            );
          }
        }
      }
    }
  }
  if (constraint === sql.CONSTRAINTS.oneSelectedVideo) {
    for (const [s, scene] of scenes.entries()) {
      for (const [t, shot] of (scene.shots ?? []).entries()) {
        if ((shot.video_versions ?? []).filter((v) => v.selected).length > 1) {
          return invalidField(
            `scenes[${s}].shots[${t}].video_versions`,
            'at most one video version of a shot can be selected',
          );
        }
      }
    }
  }
  if (constraint === sql.CONSTRAINTS.assetName) {
    for (const [, field] of ASSET_LISTS) {
      const seen = new Map<string, number>();
      for (const [i, asset] of (input[field] ?? []).entries()) {
        const first = seen.get(asset.name);
        if (first !== undefined) {
          return invalidField(`${field}[${i}].name`, `'${asset.name}' is already the name of ${field}[${first}]`);
        }
        seen.set(asset.name, i);
      }
    }
  }
  return undefined;
}

/**
 * Imports a whole storyboard project for a team in one transaction (404 unknown team; 404/403 for
 * a workspace that is unknown or another team's) and returns it as `getStoryboard` does. The
 * rules the database enforces (one selected version, unique asset names) come back as 400s
 * naming the offending field, with nothing written.
 */
export async function importStoryboard(
  pool: pg.Pool,
  teamId: string,
  input: StoryboardImport,
): Promise<StoryboardProject> {
  const graph = flatten(input);
  checkTotals(graph);
  try {
    return await withTransaction(pool, async (client) => {
      await getTeam(client, teamId);
      const workspaceId = await resolveWorkspace(client, teamId, input.workspace_id);
      const projectId = newId('sb');
      await sql.insertProject(client, {
        id: projectId,
        teamId,
        workspaceId,
        name: input.name,
        description: input.description ?? null,
        aspectRatio: input.aspect_ratio ?? null,
      });
      if (graph.scenes.length > 0) await sql.insertScenes(client, projectId, graph.scenes);
      if (graph.shots.length > 0) await sql.insertShots(client, graph.shots);
      if (graph.frames.length > 0) await sql.insertFrames(client, graph.frames);
      if (graph.images.length > 0) await sql.insertFrameImages(client, graph.images);
      if (graph.videos.length > 0) await sql.insertShotVideos(client, graph.videos);
      if (graph.assets.length > 0) await sql.insertAssets(client, projectId, graph.assets);
      return getStoryboard(client, teamId, projectId);
    });
  } catch (err) {
    if (err instanceof pg.DatabaseError && err.code === '23505' && err.constraint) {
      throw constraintError(input, err.constraint) ?? err;
    }
    throw err;
  }
}

// ---- reads -----------------------------------------------------------------------------------------

function groupBy<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}

/** The selected version's URL, else the latest's; null when there is no version. */
function currentUrl(versions: { version: number; url: string; selected: boolean }[]): string | null {
  let best: (typeof versions)[number] | undefined;
  for (const v of versions) {
    if (v.selected) return v.url;
    if (!best || v.version > best.version) best = v;
  }
  return best?.url ?? null;
}

function projectFields(row: sql.ProjectRow, sceneCount: number) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    workspace_id: row.workspace_id,
    aspect_ratio: row.aspect_ratio,
    scene_count: sceneCount,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The team's projects, newest first, each with one summary per scene; two queries in all. */
export async function listStoryboards(
  db: Queryable,
  teamId: string,
  workspaceId: string | undefined,
): Promise<StoryboardSummary[]> {
  const wsId = await resolveWorkspace(db, teamId, workspaceId);
  const projects = await sql.selectProjectsOfTeam(db, teamId, wsId);
  if (projects.length === 0) return [];
  const scenes = groupBy(
    await sql.selectSceneSummaries(
      db,
      projects.map((p) => p.id),
    ),
    (s) => s.project_id,
  );
  return projects.map((p) => {
    const own = scenes.get(p.id) ?? [];
    return {
      ...projectFields(p, own.length),
      scenes: own.map((s) => ({
        id: s.id,
        position: s.position,
        title: s.title,
        first_frame_url: s.first_frame_url,
        video_url: s.video_url,
      })),
    };
  });
}

/**
 * One project of the team with its whole graph (404 when unknown or another team's), read with a
 * fixed number of queries: one per level. A project is written whole by one transaction and never
 * changed afterwards, so the levels read separately always agree.
 */
export async function getStoryboard(db: Queryable, teamId: string, projectId: string): Promise<StoryboardProject> {
  const project = looksLikeId(projectId, 'sb') ? await sql.selectProjectOfTeam(db, teamId, projectId) : undefined;
  if (!project) throw notFound('Storyboard project', projectId);
  const scenes = await sql.selectScenes(db, projectId);
  const shots = groupBy(await sql.selectShots(db, projectId), (r) => r.scene_id);
  const frames = groupBy(await sql.selectFrames(db, projectId), (r) => r.shot_id);
  const images = groupBy(await sql.selectFrameImages(db, projectId), (r) => r.frame_id);
  const videos = groupBy(await sql.selectShotVideos(db, projectId), (r) => r.shot_id);
  const assets = groupBy(await sql.selectAssets(db, projectId), (r) => r.kind);

  const assetsOf = (kind: sql.AssetKind) =>
    (assets.get(kind) ?? []).map((a) => ({
      id: a.id,
      name: a.name,
      description: a.description,
      image_urls: a.image_urls,
    }));

  return {
    ...projectFields(project, scenes.length),
    outfits: assetsOf('outfit'),
    locations: assetsOf('location'),
    elements: assetsOf('element'),
    scenes: scenes.map((scene) => ({
      id: scene.id,
      position: scene.position,
      title: scene.title,
      description: scene.description,
      shots: (shots.get(scene.id) ?? []).map((shot) => {
        const shotVideos = videos.get(shot.id) ?? [];
        return {
          id: shot.id,
          position: shot.position,
          description: shot.description,
          duration_seconds: shot.duration_seconds,
          camera: shot.camera,
          frames: (frames.get(shot.id) ?? []).map((frame) => {
            const frameImages = images.get(frame.id) ?? [];
            return {
              id: frame.id,
              position: frame.position,
              image_url: currentUrl(frameImages),
              image_versions: frameImages.map((v) => ({
                version: v.version,
                url: v.url,
                prompt: v.prompt,
                selected: v.selected,
                created_at: v.created_at.toISOString(),
              })),
            };
          }),
          video_url: currentUrl(shotVideos),
          video_versions: shotVideos.map((v) => ({
            version: v.version,
            url: v.url,
            duration_seconds: v.duration_seconds,
            prompt: v.prompt,
            selected: v.selected,
            created_at: v.created_at.toISOString(),
          })),
        };
      }),
    })),
  };
}

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';

interface ImageVersionIn {
  url: string;
  prompt?: string;
  selected?: boolean;
}
interface VideoVersionIn {
  url: string;
  duration_seconds?: number;
  prompt?: string;
  selected?: boolean;
}
interface ShotIn {
  description?: string;
  duration_seconds?: number;
  camera?: string;
  frames?: Array<{ image_versions?: ImageVersionIn[] }>;
  video_versions?: VideoVersionIn[];
}
interface AssetIn {
  name: string;
  description?: string;
  image_urls?: string[];
}
interface ProjectIn {
  name: string;
  description?: string;
  workspace_id?: string;
  aspect_ratio?: string;
  outfits?: AssetIn[];
  locations?: AssetIn[];
  elements?: AssetIn[];
  scenes?: Array<{ title: string; description?: string; shots?: ShotIn[] }>;
}

interface Version {
  version: number;
  url: string;
  prompt: string | null;
  selected: boolean;
  created_at: string;
}
interface Project {
  id: string;
  name: string;
  description: string | null;
  workspace_id: string | null;
  aspect_ratio: string | null;
  scene_count: number;
  created_at: string;
  updated_at: string;
  outfits: Array<{ id: string; name: string; description: string | null; image_urls: string[] }>;
  locations: Array<{ id: string; name: string; description: string | null; image_urls: string[] }>;
  elements: Array<{ id: string; name: string; description: string | null; image_urls: string[] }>;
  scenes: Array<{
    id: string;
    position: number;
    title: string;
    description: string | null;
    shots: Array<{
      id: string;
      position: number;
      description: string | null;
      duration_seconds: number | null;
      camera: string | null;
      frames: Array<{ id: string; position: number; image_url: string | null; image_versions: Version[] }>;
      video_url: string | null;
      video_versions: Array<Version & { duration_seconds: number | null }>;
    }>;
  }>;
}
interface Summary {
  id: string;
  name: string;
  description: string | null;
  workspace_id: string | null;
  scene_count: number;
  created_at: string;
  updated_at: string;
  scenes: Array<{
    id: string;
    position: number;
    title: string;
    first_frame_url: string | null;
    video_url: string | null;
  }>;
}
interface ErrorReply {
  error: { code: string; message: string; details?: Array<{ field: string; message: string }> };
}

const CDN = 'https://cdn.example.com/harbor';
const img = (name: string, prompt?: string, selected?: boolean): ImageVersionIn => ({
  url: `${CDN}/${name}.png`,
  ...(prompt === undefined ? {} : { prompt }),
  ...(selected === undefined ? {} : { selected }),
});

/** A short film in three scenes: selected and unselected versions, empty shots, an empty scene. */
function harborProject(overrides: Partial<ProjectIn> = {}): ProjectIn {
  return {
    name: 'The Harbor',
    description: 'A fisherman returns home after the storm.',
    aspect_ratio: '16:9',
    outfits: [
      { name: 'Yellow oilskin', description: 'Worn, salt-stained', image_urls: [`${CDN}/oilskin.png`] },
      { name: 'Market apron', image_urls: [`${CDN}/apron-front.png`, `${CDN}/apron-back.png`] },
    ],
    locations: [{ name: 'Harbor at dawn', description: 'Fog, moored boats', image_urls: [`${CDN}/dawn.png`] }],
    elements: [{ name: 'Red lantern' }],
    scenes: [
      {
        title: 'Arrival',
        description: 'The boat comes out of the fog.',
        shots: [
          {
            description: 'Boat emerges from fog',
            duration_seconds: 4.5,
            camera: 'wide, slow dolly-in',
            frames: [
              {
                image_versions: [
                  img('s1-f1-v1', 'boat in fog, dawn'),
                  img('s1-f1-v2', 'boat in fog, dawn, warmer light', true),
                  img('s1-f1-v3', 'boat in fog, dawn, cold light'),
                ],
              },
              { image_versions: [img('s1-f2-v1', 'bow cuts the water')] },
            ],
            video_versions: [
              { url: `${CDN}/s1-shot1-v1.mp4`, duration_seconds: 5, prompt: 'boat emerges' },
              { url: `${CDN}/s1-shot1-v2.mp4`, duration_seconds: 4.5, selected: true },
              { url: `${CDN}/s1-shot1-v3.mp4` },
            ],
          },
          {
            description: 'Close on the fisherman',
            frames: [{ image_versions: [img('s1-s2-f1-v1'), img('s1-s2-f1-v2')] }],
          },
        ],
      },
      {
        title: 'The market',
        shots: [
          { description: 'Establishing shot, not drawn yet' },
          {
            duration_seconds: 3,
            frames: [{ image_versions: [] }, { image_versions: [img('s2-f1-v1'), img('s2-f1-v2', 'stalls')] }],
            video_versions: [{ url: `${CDN}/s2-v1.mp4` }, { url: `${CDN}/s2-v2.mp4` }],
          },
        ],
      },
      { title: 'Night', description: 'To be written' },
    ],
    ...overrides,
  };
}

/** What the API must answer for an imported project, ids and timestamps aside. */
function expectedGraph(input: ProjectIn) {
  const assets = (list: AssetIn[] | undefined) =>
    (list ?? []).map((a) => ({ name: a.name, description: a.description ?? null, image_urls: a.image_urls ?? [] }));
  const current = (versions: Array<{ url: string; selected?: boolean }>) =>
    versions.find((v) => v.selected)?.url ?? versions.at(-1)?.url ?? null;
  return {
    name: input.name,
    description: input.description ?? null,
    workspace_id: input.workspace_id ?? null,
    aspect_ratio: input.aspect_ratio ?? null,
    scene_count: (input.scenes ?? []).length,
    outfits: assets(input.outfits),
    locations: assets(input.locations),
    elements: assets(input.elements),
    scenes: (input.scenes ?? []).map((scene, s) => ({
      position: s + 1,
      title: scene.title,
      description: scene.description ?? null,
      shots: (scene.shots ?? []).map((shot, t) => ({
        position: t + 1,
        description: shot.description ?? null,
        duration_seconds: shot.duration_seconds ?? null,
        camera: shot.camera ?? null,
        frames: (shot.frames ?? []).map((frame, f) => ({
          position: f + 1,
          image_url: current(frame.image_versions ?? []),
          image_versions: (frame.image_versions ?? []).map((v, i) => ({
            version: i + 1,
            url: v.url,
            prompt: v.prompt ?? null,
            selected: v.selected ?? false,
          })),
        })),
        video_url: current(shot.video_versions ?? []),
        video_versions: (shot.video_versions ?? []).map((v, i) => ({
          version: i + 1,
          url: v.url,
          duration_seconds: v.duration_seconds ?? null,
          prompt: v.prompt ?? null,
          selected: v.selected ?? false,
        })),
      })),
    })),
  };
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Checks the id and timestamp fields and removes them, leaving what `expectedGraph` describes. */
function withoutIdsAndTimes(value: unknown, prefixByKey = 'sb'): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutIdsAndTimes(v, prefixByKey));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === 'id') {
      assert.match(String(v), new RegExp(`^${prefixByKey}_[0-9a-z]{26}$`));
    } else if (key === 'created_at' || key === 'updated_at') {
      assert.match(String(v), ISO);
    } else {
      const childPrefix: Record<string, string> = {
        scenes: 'scene',
        shots: 'shot',
        frames: 'frame',
        outfits: 'outf',
        locations: 'loc',
        elements: 'elem',
      };
      out[key] = withoutIdsAndTimes(v, childPrefix[key] ?? prefixByKey);
    }
  }
  return out;
}

describe('storyboards', () => {
  let server: TestServer;
  let teamA: TeamFixture;
  let teamB: TeamFixture;
  let wsA: string;
  let wsB: string;
  before(async () => {
    server = await startTestServer({ worker: false });
    teamA = await createTeam(server, 0, 'studio-a');
    teamB = await createTeam(server, 0, 'studio-b');
    const admin = (teamId: string) =>
      call<{ id: string }>(server, 'POST', `/admin/v1/teams/${teamId}/workspaces`, {
        token: server.adminToken,
        body: { name: 'films' },
      });
    wsA = (await admin(teamA.id)).body.id;
    wsB = (await admin(teamB.id)).body.id;
  });
  after(() => server.close());

  const importFor = <T = Project>(teamId: string, body: unknown) =>
    call<T>(server, 'POST', `/admin/v1/teams/${teamId}/storyboards`, { token: server.adminToken, body });
  const list = (team: TeamFixture, query = '') =>
    call<Summary[]>(server, 'GET', `/api/v1/storyboard${query}`, { token: team.key });
  const read = <T = Project>(team: TeamFixture, id: string) =>
    call<T>(server, 'GET', `/api/v1/storyboard/${id}`, { token: team.key });

  /** Rows of every storyboard table: what a rejected import must leave untouched. */
  async function rowCounts(): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const table of [
      'storyboard_projects',
      'storyboard_scenes',
      'storyboard_shots',
      'storyboard_frames',
      'storyboard_frame_images',
      'storyboard_shot_videos',
      'storyboard_assets',
    ]) {
      const { rows } = await server.pool.query<{ n: number }>(`select count(*)::int as n from ${table}`);
      counts[table] = rows[0]?.n ?? -1;
    }
    return counts;
  }

  let harbor: Project;

  test('imports a whole project and reads it back exactly, in order, with its selected versions', async () => {
    const input = harborProject();
    const created = await importFor(teamA.id, input);
    assert.equal(created.status, 201, created.text);
    harbor = created.body;
    assert.deepEqual(withoutIdsAndTimes(created.body), expectedGraph(input));
    assert.equal(created.body.created_at, created.body.updated_at);

    // Spot checks of what the expectation derives: version 2 of the first frame is selected, the
    // latest stands in where nothing is.
    const shot1 = created.body.scenes[0]?.shots[0];
    assert.equal(shot1?.frames[0]?.image_url, `${CDN}/s1-f1-v2.png`);
    assert.deepEqual(
      shot1?.frames[0]?.image_versions.map((v) => [v.version, v.selected]),
      [
        [1, false],
        [2, true],
        [3, false],
      ],
    );
    assert.equal(shot1?.video_url, `${CDN}/s1-shot1-v2.mp4`);
    assert.equal(created.body.scenes[1]?.shots[1]?.video_url, `${CDN}/s2-v2.mp4`);
    assert.equal(created.body.scenes[1]?.shots[1]?.frames[0]?.image_url, null);

    const again = await read(teamA, created.body.id);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, created.body);
  });

  test('lists projects with per-scene summaries: counts, first-frame and video URLs', async () => {
    const r = await list(teamA);
    assert.equal(r.status, 200);
    assert.equal(r.body.length, 1);
    const [summary] = r.body;
    assert.deepEqual(
      { ...summary, scenes: undefined },
      {
        id: harbor.id,
        name: 'The Harbor',
        description: 'A fisherman returns home after the storm.',
        workspace_id: null,
        aspect_ratio: '16:9',
        scene_count: 3,
        created_at: harbor.created_at,
        updated_at: harbor.updated_at,
        scenes: undefined,
      },
    );
    assert.deepEqual(summary?.scenes, [
      {
        id: harbor.scenes[0]?.id,
        position: 1,
        title: 'Arrival',
        // The selected version (2) of the first frame of the first shot, not the latest (3).
        first_frame_url: `${CDN}/s1-f1-v2.png`,
        video_url: `${CDN}/s1-shot1-v2.mp4`,
      },
      {
        id: harbor.scenes[1]?.id,
        position: 2,
        title: 'The market',
        // The first shot has no frame and the second's first frame no image: the next frame's latest.
        first_frame_url: `${CDN}/s2-f1-v2.png`,
        video_url: `${CDN}/s2-v2.mp4`,
      },
      { id: harbor.scenes[2]?.id, position: 3, title: 'Night', first_frame_url: null, video_url: null },
    ]);
  });

  test('a project in a workspace: the filter lists it alone; another team’s workspace is 403', async () => {
    const minimal = { name: 'Teaser', workspace_id: wsA, scenes: [{ title: 'Only scene' }] };
    const created = await importFor(teamA.id, minimal);
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.workspace_id, wsA);
    assert.deepEqual(withoutIdsAndTimes(created.body), expectedGraph(minimal));

    const all = await list(teamA);
    assert.deepEqual(
      all.body.map((p) => p.id),
      [created.body.id, harbor.id],
      'newest first',
    );
    const filtered = await list(teamA, `?workspace_id=${wsA}`);
    assert.equal(filtered.status, 200);
    assert.deepEqual(
      filtered.body.map((p) => [p.id, p.workspace_id, p.scene_count]),
      [[created.body.id, wsA, 1]],
    );
    assert.deepEqual(
      filtered.body[0]?.scenes.map((s) => [s.title, s.first_frame_url, s.video_url]),
      [['Only scene', null, null]],
    );

    const foreign = await list(teamA, `?workspace_id=${wsB}`);
    assert.equal(foreign.status, 403);
    assert.equal((foreign.body as unknown as ErrorReply).error.code, 'forbidden');
    const unknown = await list(teamA, '?workspace_id=ws_00000000000000000000000000');
    assert.equal(unknown.status, 404);
  });

  test('an import into another team’s or an unknown workspace is refused and writes nothing', async () => {
    const before = await rowCounts();
    const foreign = await importFor<ErrorReply>(teamA.id, harborProject({ workspace_id: wsB }));
    assert.equal(foreign.status, 403);
    assert.equal(foreign.body.error.code, 'forbidden');
    const unknown = await importFor<ErrorReply>(teamA.id, harborProject({ workspace_id: 'ws_missing' }));
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.error.message, /Workspace/);
    assert.deepEqual(await rowCounts(), before);
  });

  test('another team neither reads nor lists the project', async () => {
    const r = await read<ErrorReply>(teamB, harbor.id);
    assert.equal(r.status, 404);
    assert.equal(r.body.error.code, 'not_found');
    assert.match(r.body.error.message, /Storyboard project/);
    const own = await list(teamB);
    assert.equal(own.status, 200);
    assert.deepEqual(own.body, []);
    for (const id of ['sb_00000000000000000000000000', 'not-an-id', 'scene_00000000000000000000000000']) {
      const missing = await read<ErrorReply>(teamA, id);
      assert.equal(missing.status, 404, id);
      assert.equal(missing.body.error.code, 'not_found');
    }
  });

  test('invalid imports are 400 with one detail per bad field and write nothing', async () => {
    const before = await rowCounts();
    const cases: Array<[string, unknown, string[]]> = [
      ['missing name', { ...harborProject(), name: undefined }, ['name']],
      [
        'bad URLs',
        harborProject({
          scenes: [
            {
              title: 'x',
              shots: [
                {
                  frames: [{ image_versions: [{ url: 'ftp://cdn.example.com/a.png' }, { url: 'not a url' }] }],
                  video_versions: [{ url: 'javascript:alert(1)' }],
                },
              ],
            },
          ],
        }),
        [
          'scenes[0].shots[0].frames[0].image_versions[0].url',
          'scenes[0].shots[0].frames[0].image_versions[1].url',
          'scenes[0].shots[0].video_versions[0].url',
        ],
      ],
      [
        'too many scenes',
        { name: 'Epic', scenes: Array.from({ length: 201 }, (_, i) => ({ title: `Scene ${i + 1}` })) },
        ['scenes'],
      ],
      [
        'wrong types and unknown fields',
        {
          name: 'x',
          aspect_ratio: 'wide',
          outfits: [{ name: '' }],
          scenes: [{ title: 'x', shots: [{ duration_seconds: '4', frame: [] }] }],
        },
        ['aspect_ratio', 'outfits[0].name', 'scenes[0].shots[0].duration_seconds', 'scenes[0].shots[0].frame'],
      ],
    ];
    for (const [label, body, fields] of cases) {
      const r = await importFor<ErrorReply>(teamA.id, body);
      assert.equal(r.status, 400, label);
      assert.equal(r.body.error.code, 'invalid_request', label);
      assert.deepEqual(r.body.error.details?.map((d) => d.field).sort(), [...fields].sort(), label);
    }
    assert.deepEqual(await rowCounts(), before);
    assert.equal((await list(teamA)).body.length, 2);
  });

  test('a project over the total limits is refused before anything is written', async () => {
    const before = await rowCounts();
    const shots = Array.from({ length: 100 }, () => ({}));
    const r = await importFor<ErrorReply>(teamA.id, {
      name: 'Too long',
      scenes: Array.from({ length: 51 }, (_, i) => ({ title: `Scene ${i + 1}`, shots })),
    });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body.error.details, [
      { field: 'scenes[].shots', message: 'a project holds at most 5000 in all (got 5100)' },
    ]);
    assert.deepEqual(await rowCounts(), before);
  });

  test('an import above the general 1 MiB JSON limit is accepted up to 32 MiB; beyond, 413 and nothing written', async () => {
    const prompt = 'harbor at dawn, fog over the water, boats moored along the quay, warm light; '.repeat(3);
    const big: ProjectIn = {
      name: 'Long film',
      scenes: Array.from({ length: 100 }, (_, s) => ({
        title: `Scene ${s + 1}`,
        shots: Array.from({ length: 10 }, (_, t) => ({
          frames: Array.from({ length: 2 }, (_, f) => ({
            image_versions: Array.from({ length: 3 }, (_, v) => img(`s${s}-t${t}-f${f}-v${v}`, prompt)),
          })),
        })),
      })),
    };
    const bytes = Buffer.byteLength(JSON.stringify(big));
    assert.ok(bytes > 1024 * 1024, `${bytes} bytes`);
    const studio = await createTeam(server, 0, 'studio-long');
    const created = await importFor(studio.id, big);
    assert.equal(created.status, 201, created.text.slice(0, 500));
    assert.equal(created.body.scenes.length, 100);
    assert.equal(created.body.scenes[99]?.shots[9]?.frames[1]?.image_versions.length, 3);

    const before = await rowCounts();
    const tooBig = await importFor<ErrorReply>(studio.id, { name: 'x', description: 'y'.repeat(33 * 1024 * 1024) });
    assert.equal(tooBig.status, 413);
    assert.equal(tooBig.body.error.code, 'payload_too_large');
    assert.match(tooBig.body.error.message, /32 MiB/);
    assert.deepEqual(await rowCounts(), before);
  });

  test('an import that breaks a database rule halfway leaves nothing behind', async () => {
    const before = await rowCounts();
    // Scenes, shots, frames and versions are in by the time the duplicate outfit name is refused.
    const duplicate = await importFor<ErrorReply>(
      teamA.id,
      harborProject({ outfits: [{ name: 'Yellow oilskin' }, { name: 'Apron' }, { name: 'Yellow oilskin' }] }),
    );
    assert.equal(duplicate.status, 400, duplicate.text);
    assert.deepEqual(duplicate.body.error.details, [
      { field: 'outfits[2].name', message: "'Yellow oilskin' is already the name of outfits[0]" },
    ]);

    const project = harborProject();
    const frame = project.scenes?.[1]?.shots?.[1]?.frames?.[1];
    assert.ok(frame);
    frame.image_versions = [img('a', undefined, true), img('b', undefined, true)];
    const twoSelected = await importFor<ErrorReply>(teamA.id, project);
    assert.equal(twoSelected.status, 400);
    assert.deepEqual(twoSelected.body.error.details, [
      {
        field: 'scenes[1].shots[1].frames[1].image_versions',
        message: 'at most one image version of a frame can be selected',
      },
    ]);

    const videos = harborProject();
    const shot = videos.scenes?.[0]?.shots?.[1];
    assert.ok(shot);
    shot.video_versions = [
      { url: `${CDN}/a.mp4`, selected: true },
      { url: `${CDN}/b.mp4`, selected: true },
    ];
    const twoVideos = await importFor<ErrorReply>(teamA.id, videos);
    assert.equal(twoVideos.status, 400);
    assert.equal(twoVideos.body.error.details?.[0]?.field, 'scenes[0].shots[1].video_versions');

    assert.deepEqual(await rowCounts(), before);
    assert.deepEqual(
      (await list(teamA)).body.map((p) => p.name),
      ['Teaser', 'The Harbor'],
    );
  });

  test('an unknown team is 404 and writes nothing', async () => {
    const before = await rowCounts();
    const r = await importFor<ErrorReply>('team_00000000000000000000000000', harborProject());
    assert.equal(r.status, 404);
    assert.equal(r.body.error.code, 'not_found');
    assert.match(r.body.error.message, /Team/);
    assert.deepEqual(await rowCounts(), before);
  });

  test('the import takes only the admin token; the team routes only an API key', async () => {
    const path = `/admin/v1/teams/${teamA.id}/storyboards`;
    const withKey = await call<ErrorReply>(server, 'POST', path, { token: teamA.key, body: harborProject() });
    assert.equal(withKey.status, 401);
    assert.equal(withKey.body.error.code, 'unauthorized');
    assert.equal((await call(server, 'POST', path, { body: harborProject() })).status, 401);
    assert.equal((await call(server, 'GET', '/api/v1/storyboard', { token: server.adminToken })).status, 401);
    assert.equal((await call(server, 'GET', `/api/v1/storyboard/${harbor.id}`)).status, 401);
  });

  test('the routes are documented with their tags, schemas and errors', async () => {
    const doc = await call<{
      paths: Record<string, Record<string, { tags: string[]; description?: string; responses: object }>>;
    }>(server, 'GET', '/openapi.json');
    const list = doc.body.paths['/api/v1/storyboard']?.get;
    const one = doc.body.paths['/api/v1/storyboard/{projectId}']?.get;
    const imp = doc.body.paths['/admin/v1/teams/{team_id}/storyboards']?.post;
    assert.deepEqual(list?.tags, ['Storyboards']);
    assert.deepEqual(one?.tags, ['Storyboards']);
    assert.deepEqual(imp?.tags, ['Admin']);
    for (const op of [list, one, imp]) assert.ok(op?.description);
    assert.deepEqual(Object.keys(one?.responses ?? {}).sort(), ['200', '401', '404', '429', '503']);
    assert.deepEqual(Object.keys(imp?.responses ?? {}).sort(), [
      '201',
      '400',
      '401',
      '403',
      '404',
      '413',
      '429',
      '503',
    ]);
  });
});

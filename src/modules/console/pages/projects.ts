// A team's storyboards and desktop projects, read-only: the lists; a storyboard's whole project
// (assets, then scenes, shots and frames with their current image and video); a desktop project's
// snapshot summary (the latest, or a chosen version) and its versions, page by page.
import type { ResponseOf } from '@genmedia/sdk';
import { attrs, type Html, html } from '../html.ts';
import { page } from '../layout.ts';
import { thumbnail } from '../media.ts';
import type { ConsoleContext, ConsoleRoute } from '../types.ts';

type Storyboards = ResponseOf<'/api/v1/storyboard', 'get'>;
type Storyboard = ResponseOf<'/api/v1/storyboard/{projectId}', 'get'>;
type DesktopProjects = ResponseOf<'/api/v1/desktop-projects', 'get'>;
type Snapshot = ResponseOf<'/api/v1/desktop-projects/{desktopProjectId}', 'get'>;
type Versions = ResponseOf<'/api/v1/desktop-projects/{desktopProjectId}/versions', 'get'>;
type Asset = Storyboard['outfits'][number];
type Shot = Storyboard['scenes'][number]['shots'][number];

const VERSIONS_PAGE_SIZE = 50;
const METADATA_SHOWN = 4000;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

function storyboardTable(storyboards: Storyboards): Html {
  if (storyboards.length === 0)
    return html`<p class="muted">No storyboards yet: an operator imports them (<code>POST /admin/v1/teams/{team_id}/storyboards</code>).</p>`;
  return html`<table>
<thead><tr><th scope="col">Storyboard</th><th scope="col">Scenes</th><th scope="col">Frame</th><th scope="col">Workspace</th><th scope="col">Updated</th></tr></thead>
<tbody>${storyboards.map(
    (s) => html`<tr>
<td><a href="/console/projects/storyboards/${encodeURIComponent(s.id)}"><strong>${s.name}</strong></a>${s.description ? html`<br><small>${s.description}</small>` : ''}</td>
<td>${s.scene_count}${s.scenes.length > 0 ? html`<br><small class="muted">${s.scenes.map((scene) => scene.title).join(' · ')}</small>` : ''}</td>
<td>${s.scenes
      .filter((scene) => scene.first_frame_url)
      .slice(0, 3)
      .map((scene) =>
        thumbnail(scene.first_frame_url as string, `First frame of ${scene.title}`),
      )}${s.aspect_ratio ? html`<br><small class="muted">${s.aspect_ratio}</small>` : ''}</td>
<td>${s.workspace_id ? html`<code>${s.workspace_id}</code>` : ''}</td>
<td><small>${s.updated_at}</small></td>
</tr>`,
  )}</tbody>
</table>`;
}

function desktopTable(projects: DesktopProjects): Html {
  if (projects.length === 0)
    return html`<p class="muted">No desktop projects yet: the desktop app pushes its snapshots with <code>POST /api/v1/desktop-projects</code>.</p>`;
  return html`<table>
<thead><tr><th scope="col">Project</th><th scope="col">Latest version</th><th scope="col">Versions</th><th scope="col">Workspace</th><th scope="col">Last push</th></tr></thead>
<tbody>${projects.map(
    (p) => html`<tr>
<td><a href="/console/projects/desktop/${encodeURIComponent(p.desktop_project_id)}"><strong>${p.name ?? p.desktop_project_id}</strong></a>${p.name ? html`<br><small class="muted"><code>${p.desktop_project_id}</code></small>` : ''}</td>
<td>${p.latest_version}</td>
<td>${p.version_count}</td>
<td>${p.workspace_id ? html`<code>${p.workspace_id}</code>` : ''}</td>
<td><small>${p.updated_at}</small></td>
</tr>`,
  )}</tbody>
</table>`;
}

function assetList(title: string, assets: Asset[]): Html {
  if (assets.length === 0) return html``;
  return html`<h3>${title}</h3>
<ul>${assets.map(
    (a) =>
      html`<li><strong>${a.name}</strong>${a.description ? html`: ${a.description}` : ''}${
        a.image_urls.length > 0 ? html`<br>${a.image_urls.slice(0, 4).map((url) => thumbnail(url, `${a.name}`))}` : ''
      }</li>`,
  )}</ul>`;
}

function shotRow(shot: Shot): Html {
  return html`<tr>
<td>${shot.position}</td>
<td>${shot.description ?? ''}${shot.camera ? html`<br><small class="muted">Camera: ${shot.camera}</small>` : ''}${
    shot.duration_seconds !== null ? html`<br><small class="muted">${shot.duration_seconds} s</small>` : ''
  }</td>
<td>${
    shot.frames.length === 0
      ? html`<span class="muted">none</span>`
      : shot.frames.map(
          (f) =>
            html`<span class="frame">${f.image_url ? thumbnail(f.image_url, `Frame ${f.position} of shot ${shot.position}`) : html`<span class="muted">frame ${f.position}: no image</span>`}<br><small class="muted">${plural(f.image_versions.length, 'version')}</small></span> `,
        )
  }</td>
<td>${shot.video_url ? thumbnail(shot.video_url, `Video of shot ${shot.position}`) : html`<span class="muted">none</span>`}${
    shot.video_versions.length > 0
      ? html`<br><small class="muted">${plural(shot.video_versions.length, 'version')}</small>`
      : ''
  }</td>
</tr>`;
}

function storyboardBody(s: Storyboard): Html {
  return html`<p>${s.description ?? ''}</p>
<p class="muted">${plural(s.scene_count, 'scene')}${s.aspect_ratio ? ` · ${s.aspect_ratio}` : ''}${
    s.workspace_id ? html` · workspace <code>${s.workspace_id}</code>` : ''
  } · updated ${s.updated_at}</p>
${assetList('Outfits', s.outfits)}
${assetList('Locations', s.locations)}
${assetList('Elements', s.elements)}
${
  s.scenes.length === 0
    ? html`<p class="muted">This storyboard has no scenes.</p>`
    : s.scenes.map(
        (scene) => html`<section>
<h2>Scene ${scene.position}: ${scene.title}</h2>
${scene.description ? html`<p>${scene.description}</p>` : ''}
${
  scene.shots.length === 0
    ? html`<p class="muted">No shots.</p>`
    : html`<table>
<thead><tr><th scope="col">Shot</th><th scope="col">What happens</th><th scope="col">Frames</th><th scope="col">Video</th></tr></thead>
<tbody>${scene.shots.map(shotRow)}</tbody>
</table>`
}
</section>`,
      )
}
<p><a href="/console/projects">All projects</a></p>`;
}

/** What a snapshot holds, without showing all of its payload. */
function snapshotSummary(snapshot: Snapshot): Html {
  const { storyboards, timelines, metadata, ...rest } = snapshot.payload;
  const metadataText = JSON.stringify(metadata, null, 2);
  const others = Object.keys(rest);
  return html`<dl class="summary">
<dt>Version</dt><dd>${snapshot.version} of ${snapshot.latest_version}</dd>
<dt>Pushed</dt><dd>${snapshot.created_at}</dd>
<dt>Size</dt><dd>${bytes(snapshot.size_bytes)}</dd>
<dt>Storyboards</dt><dd>${storyboards.length}</dd>
<dt>Timelines</dt><dd>${timelines.length}</dd>
${snapshot.workspace_id ? html`<dt>Workspace</dt><dd><code>${snapshot.workspace_id}</code></dd>` : ''}
${others.length > 0 ? html`<dt>Other keys</dt><dd>${others.join(', ')}</dd>` : ''}
</dl>
<h3>Metadata</h3>
<pre class="text-result">${
    metadataText.length > METADATA_SHOWN ? `${metadataText.slice(0, METADATA_SHOWN)}\n…` : metadataText
  }</pre>`;
}

function versionTable(ctx: ConsoleContext, id: string, versions: Versions, shown: number): Html {
  if (versions.length === 0) return html`<p class="muted">No older versions.</p>`;
  const base = `/console/projects/desktop/${encodeURIComponent(id)}`;
  const last = versions.at(-1);
  return html`<table>
<thead><tr><th scope="col">Version</th><th scope="col">Pushed</th><th scope="col">Size</th></tr></thead>
<tbody>${versions.map(
    (v) => html`<tr>
<td>${
      v.version === shown
        ? html`<strong aria-current="true">${v.version}</strong>`
        : html`<a href="${`${base}?version=${v.version}`}">${v.version}</a>`
    }</td>
<td><small>${v.created_at}</small></td>
<td>${bytes(v.size_bytes)}</td>
</tr>`,
  )}</tbody>
</table>
${
  versions.length === VERSIONS_PAGE_SIZE && last
    ? html`<p><a ${attrs({
        href: `${base}?${new URLSearchParams({ ...(ctx.query.version ? { version: ctx.query.version } : {}), before: String(last.version) })}`,
        role: 'button',
        class: 'secondary',
      })}>Older versions</a></p>`
    : ''
}`;
}

export const projectRoutes: ConsoleRoute[] = [
  {
    method: 'GET',
    path: '/console/projects',
    who: 'team',
    async handler(ctx) {
      const { session } = ctx;
      const [storyboards, projects] = await Promise.all([
        ctx.api<Storyboards>('GET', '/api/v1/storyboard'),
        ctx.api<DesktopProjects>('GET', '/api/v1/desktop-projects'),
      ]);
      return page(
        { title: 'Projects', session, current: '/console/projects' },
        html`<h2>Storyboards</h2>
${storyboardTable(storyboards)}
<h2>Desktop projects</h2>
${desktopTable(projects)}`,
      );
    },
  },
  {
    method: 'GET',
    path: '/console/projects/storyboards/:id',
    who: 'team',
    async handler(ctx) {
      const storyboard = await ctx.api<Storyboard>(
        'GET',
        `/api/v1/storyboard/${encodeURIComponent(ctx.params.id ?? '')}`,
      );
      return page(
        { title: `Storyboard: ${storyboard.name}`, session: ctx.session, current: '/console/projects' },
        storyboardBody(storyboard),
      );
    },
  },
  {
    method: 'GET',
    path: '/console/projects/desktop/:id',
    who: 'team',
    async handler(ctx) {
      const id = ctx.params.id ?? '';
      const path = `/api/v1/desktop-projects/${encodeURIComponent(id)}`;
      const snapshotQuery = new URLSearchParams();
      if (ctx.query.version) snapshotQuery.set('version', ctx.query.version);
      const versionsQuery = new URLSearchParams({ limit: String(VERSIONS_PAGE_SIZE) });
      if (ctx.query.before) versionsQuery.set('before', ctx.query.before);
      const [snapshot, versions] = await Promise.all([
        ctx.api<Snapshot>('GET', `${path}?${snapshotQuery}`),
        ctx.api<Versions>('GET', `${path}/versions?${versionsQuery}`),
      ]);
      return page(
        {
          title: `Desktop project: ${snapshot.name ?? snapshot.desktop_project_id}`,
          session: ctx.session,
          current: '/console/projects',
        },
        html`<p class="muted"><code>${snapshot.desktop_project_id}</code> · read-only: the desktop app pushes new versions</p>
<h2>${snapshot.version === snapshot.latest_version ? 'Latest snapshot' : `Snapshot version ${snapshot.version}`}</h2>
${snapshotSummary(snapshot)}
<h2>Versions</h2>
${versionTable(ctx, id, versions, snapshot.version)}
<p><a href="/console/projects">All projects</a></p>`,
      );
    },
  },
];

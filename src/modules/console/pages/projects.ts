// A team's storyboards and desktop projects, read-only.
import type { ResponseOf } from '@genmedia/sdk';
import { api } from '../api.ts';
import { html } from '../html.ts';
import { page } from '../layout.ts';
import type { ConsoleRoute } from '../routes.ts';

export const projectRoutes: ConsoleRoute[] = [
  {
    method: 'GET',
    path: '/console/projects',
    who: 'team',
    async handler(ctx) {
      const [storyboards, projects] = await Promise.all([
        api<ResponseOf<'/api/v1/storyboard', 'get'>>(ctx.app, ctx.request, ctx.session, 'GET', '/api/v1/storyboard'),
        api<ResponseOf<'/api/v1/desktop-projects', 'get'>>(
          ctx.app,
          ctx.request,
          ctx.session,
          'GET',
          '/api/v1/desktop-projects',
        ),
      ]);
      return page(
        { title: 'Projects', session: ctx.session, current: '/console/projects' },
        html`<h2>Storyboards</h2><ul>${storyboards.map((s) => html`<li>${JSON.stringify(s).slice(0, 200)}</li>`)}</ul>
<h2>Desktop projects</h2><ul>${projects.map((p) => html`<li>${p.name ?? p.desktop_project_id} · version ${p.latest_version}</li>`)}</ul>`,
      );
    },
  },
];

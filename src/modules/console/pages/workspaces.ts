// A team's workspaces.
import type { ResponseOf } from '@genmedia/sdk';
import { api } from '../api.ts';
import { html } from '../html.ts';
import { page } from '../layout.ts';
import type { ConsoleRoute } from '../routes.ts';

type Workspaces = ResponseOf<'/api/v1/workspaces', 'get'>;

export const workspaceRoutes: ConsoleRoute[] = [
  {
    method: 'GET',
    path: '/console/workspaces',
    who: 'team',
    async handler(ctx) {
      const workspaces = await api<Workspaces>(ctx.app, ctx.request, ctx.session, 'GET', '/api/v1/workspaces');
      return page(
        { title: 'Workspaces', session: ctx.session, current: '/console/workspaces' },
        html`${workspaces.length === 0 ? html`<p class="muted">No workspaces yet.</p>` : ''}
<ul>${workspaces.map((w) => html`<li><a href="/console/generations?workspace_id=${w.id}">${w.name}</a> <small class="muted">${w.id}</small></li>`)}</ul>`,
      );
    },
  },
];

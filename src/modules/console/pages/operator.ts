// The operator's pages: the teams.
import type { ResponseOf } from '@genmedia/sdk';
import { api } from '../api.ts';
import { html } from '../html.ts';
import { page } from '../layout.ts';
import type { ConsoleRoute } from '../routes.ts';

export const operatorRoutes: ConsoleRoute[] = [
  {
    method: 'GET',
    path: '/console/operator/teams',
    who: 'operator',
    async handler(ctx) {
      const teams = await api<ResponseOf<'/admin/v1/teams', 'get'>>(
        ctx.app,
        ctx.request,
        ctx.session,
        'GET',
        '/admin/v1/teams',
      );
      return page(
        { title: 'Teams', session: ctx.session, current: '/console/operator/teams' },
        html`<ul>${(Array.isArray(teams) ? teams : []).map((t) => html`<li>${t.name} · ${t.credits} credits · <small>${t.id}</small></li>`)}</ul>`,
      );
    },
  },
];

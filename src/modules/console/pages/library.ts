// A team's library: its influencers, voices and music tracks.
import type { ResponseOf } from '@genmedia/sdk';
import { api } from '../api.ts';
import { html } from '../html.ts';
import { page } from '../layout.ts';
import type { ConsoleRoute } from '../routes.ts';

export const libraryRoutes: ConsoleRoute[] = [
  {
    method: 'GET',
    path: '/console/library',
    who: 'team',
    async handler(ctx) {
      const [influencers, voices, tracks] = await Promise.all([
        api<ResponseOf<'/api/v1/influencers', 'get'>>(ctx.app, ctx.request, ctx.session, 'GET', '/api/v1/influencers'),
        api<ResponseOf<'/api/v1/voices', 'get'>>(ctx.app, ctx.request, ctx.session, 'GET', '/api/v1/voices'),
        api<ResponseOf<'/api/v1/music', 'get'>>(ctx.app, ctx.request, ctx.session, 'GET', '/api/v1/music'),
      ]);
      return page(
        { title: 'Library', session: ctx.session, current: '/console/library' },
        html`<h2>Influencers</h2><ul>${influencers.map((i) => html`<li>${i.name} (${i.training_status})</li>`)}</ul>
<h2>Voices</h2><ul>${voices.map((v) => html`<li>${v.name} <audio src="${v.audio_url}" controls preload="none" aria-label="${v.name}"></audio></li>`)}</ul>
<h2>Music</h2><ul>${tracks.map((t) => html`<li>${t.title}</li>`)}</ul>`,
      );
    },
  },
];

// The playground: a form for each generation endpoint.
import { html } from '../html.ts';
import { page } from '../layout.ts';
import type { ConsoleRoute } from '../routes.ts';

export const playgroundRoutes: ConsoleRoute[] = [
  {
    method: 'GET',
    path: '/console/playground',
    who: 'team',
    handler(ctx) {
      return page(
        { title: 'Playground', session: ctx.session, current: '/console/playground' },
        html`<p>Pick an endpoint.</p>`,
      );
    },
  },
];

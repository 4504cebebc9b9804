// A team's workspaces: the list, each linking to its generations, and a form to create one.
import type { ResponseOf } from '@genmedia/sdk';
import { ApiCallError, type ApiErrorBody } from '../api.ts';
import { attrs, type Html, html } from '../html.ts';
import { csrfField, errorBox, page } from '../layout.ts';
import type { ConsoleContext, ConsoleRoute } from '../types.ts';

type Workspaces = ResponseOf<'/api/v1/workspaces', 'get'>;
type Workspace = ResponseOf<'/api/v1/workspaces', 'post'>;

function workspaceTable(workspaces: Workspaces, created: string | undefined): Html {
  if (workspaces.length === 0)
    return html`<p class="muted">No workspaces yet. A workspace groups generations, music, storyboards and desktop projects: create one below, then pass its id as <code>workspace_id</code>.</p>`;
  return html`<table>
<thead><tr><th scope="col">Workspace</th><th scope="col">Id</th><th scope="col">Created</th><th scope="col">Its work</th></tr></thead>
<tbody>${workspaces.map(
    (w) => html`<tr ${attrs({ class: w.id === created ? 'created' : undefined })}>
<td><strong>${w.name}</strong>${w.id === created ? html` <small class="ok">created</small>` : ''}</td>
<td><code>${w.id}</code></td>
<td><small>${w.created_at}</small></td>
<td><a href="/console/generations?workspace_id=${encodeURIComponent(w.id)}">Generations</a></td>
</tr>`,
  )}</tbody>
</table>`;
}

function workspacesPage(
  ctx: ConsoleContext,
  workspaces: Workspaces,
  form: { name?: string; problem?: ApiErrorBody['error'] } = {},
): Html {
  return page(
    { title: 'Workspaces', session: ctx.session, current: '/console/workspaces' },
    html`${workspaceTable(workspaces, ctx.query.created)}
<h2>New workspace</h2>
${form.problem ? errorBox(form.problem.message, form.problem.details) : ''}
<form method="post" action="/console/workspaces">
${csrfField(ctx.session)}
<label for="workspace-name">Name</label>
<input id="workspace-name" name="name" required maxlength="100" ${attrs({ value: form.name, 'aria-invalid': form.problem ? 'true' : undefined })}>
<button type="submit">Create</button>
</form>`,
  );
}

const listWorkspaces = (ctx: ConsoleContext) => ctx.api<Workspaces>('GET', '/api/v1/workspaces');

export const workspaceRoutes: ConsoleRoute[] = [
  {
    method: 'GET',
    path: '/console/workspaces',
    who: 'team',
    async handler(ctx) {
      return workspacesPage(ctx, await listWorkspaces(ctx));
    },
  },
  {
    method: 'POST',
    path: '/console/workspaces',
    who: 'team',
    async handler(ctx) {
      const name = ctx.form.name ?? '';
      const answer = await ctx.callApi<Workspace | ApiErrorBody>('POST', '/api/v1/workspaces', {
        body: { name },
      });
      if (answer.status === 201)
        return { redirect: `/console/workspaces?created=${encodeURIComponent((answer.body as Workspace).id)}` };
      const problem = answer.body as ApiErrorBody;
      if (answer.status !== 400) throw new ApiCallError(answer.status, problem, 'The workspace was not created');
      // A name the API refuses: the form again, with its reason and what was typed.
      ctx.reply.code(400);
      return workspacesPage(ctx, await listWorkspaces(ctx), { name, problem: problem.error });
    },
  },
];

import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { PageQueryFields, pageSchema } from '../../lib/pagination.ts';
import { errorResponses } from '../../lib/schemas.ts';
import { getBalance } from '../credits/service.ts';
import { acceptsCsvFirst } from './csv.ts';
import { CreditPlan, LEDGER_CSV_COLUMNS, TeamLedgerEntry, Usage, UsageQuery } from './schemas.ts';
import { getUsage, ledgerCsv, listLedgerPage, MAX_USAGE_DAYS } from './service.ts';

const LedgerPage = pageSchema(TeamLedgerEntry, 'LedgerPage');

export default async function billingRoutes(app: App): Promise<void> {
  app.get(
    '/api/v1/billing/plans',
    {
      schema: {
        tags: ['Billing'],
        summary: 'List the one-time credit plans',
        response: { 200: Type.Array(CreditPlan), ...errorResponses(401) },
      },
    },
    // The response schema leaves out what the data file keeps for internal use (credits per variant).
    () => app.deps.plans,
  );

  app.get(
    '/api/v1/billing/credits',
    {
      schema: {
        tags: ['Billing'],
        summary: "The team's credit balance",
        description: 'The body is a bare JSON number.',
        response: { 200: Type.Integer({ examples: [10000] }), ...errorResponses(401) },
      },
    },
    (request) => getBalance(app.deps.pool, request.principal.teamId),
  );

  app.get(
    '/api/v1/billing/ledger',
    {
      schema: {
        tags: ['Billing'],
        summary: "The team's ledger: every change of its balance, newest first",
        description:
          'Cursor pagination: pass `next_cursor` as `cursor` for the next (older) page; it is null on the last ' +
          'one. Entries are ordered by `created_at`, then `id`, newest first. `created_after` and `created_before` ' +
          'are both exclusive. With `Accept: text/csv` the page comes as CSV (RFC 4180: a header row `' +
          `${LEDGER_CSV_COLUMNS.join(',')}` +
          "`, one row per entry, CRLF line ends) and the next page's cursor in the `X-Next-Cursor` header " +
          '(absent on the last page).',
        querystring: Type.Object(PageQueryFields),
        response: {
          200: {
            description: 'One page of entries',
            content: {
              'application/json': { schema: LedgerPage },
              'text/csv': { schema: Type.String({ description: 'The page as CSV' }) },
            },
          },
          ...errorResponses(400, 401),
        },
      },
    },
    async (request, reply) => {
      const page = await listLedgerPage(app.deps.pool, request.principal.teamId, request.query);
      reply.header('vary', 'Accept');
      if (!acceptsCsvFirst(request.headers.accept)) return page;
      if (page.next_cursor !== null) reply.header('x-next-cursor', page.next_cursor);
      return reply.type('text/csv; charset=utf-8').send(ledgerCsv(page.data));
    },
  );

  app.get(
    '/api/v1/billing/usage',
    {
      schema: {
        tags: ['Billing'],
        summary: 'Credits spent by day and by operation and model over a range of days',
        description:
          `UTC days \`from\` to \`to\`, both included (at most ${MAX_USAGE_DAYS} days; default the last 30 days ` +
          "up to today). Counts the ledger's `charge` and `refund` entries (grants, purchases and corrections " +
          'are not usage); an entry counts on the day it was written, and under the operation and model of the ' +
          'generation it names. `net` is what was spent: the balance went down by the sum of `net`.',
        querystring: UsageQuery,
        response: { 200: Usage, ...errorResponses(400, 401) },
      },
    },
    (request) => getUsage(app.deps.pool, request.principal.teamId, request.query),
  );
}

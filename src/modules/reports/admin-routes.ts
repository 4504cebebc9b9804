import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { errorResponses } from '../../lib/schemas.ts';
import { MarginQuery, MarginReport } from './schemas.ts';
import { MARGIN_CSV_COLUMNS, marginCsv, marginReport } from './service.ts';

export default async function reportAdminRoutes(app: App): Promise<void> {
  app.get(
    '/admin/v1/reports/margin',
    {
      schema: {
        tags: ['Admin'],
        summary: 'Revenue against vendor cost, by model, vendor or team',
        description:
          'Over the generations created in [from, to): credits net of refunds, their revenue at ' +
          'CREDIT_VALUE_USD (null, with the margin, when it is unset), the vendor cost in US dollars ' +
          "recorded on their attempts (and their sub-work's), and the attempts whose cost is unknown " +
          '(`unpriced_attempts`: not in the cost, not free). `negative` lists the rows whose margin is ' +
          `below 0. With \`format=csv\`: a header row \`${MARGIN_CSV_COLUMNS.join(',')}\`, one row per key.`,
        querystring: MarginQuery,
        response: {
          200: {
            description: 'The report',
            content: {
              'application/json': { schema: MarginReport },
              'text/csv': { schema: Type.String({ description: 'The rows as CSV' }) },
            },
          },
          ...errorResponses(400, 401),
        },
      },
    },
    async (request, reply) => {
      const report = await marginReport(app.deps.pool, app.deps.config.creditValueUsd, request.query);
      if (request.query.format !== 'csv') return report;
      return reply.type('text/csv; charset=utf-8').send(marginCsv(report));
    },
  );
}

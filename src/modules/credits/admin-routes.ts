import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { withTransaction } from '../../db/pool.ts';
import { errorResponses, Timestamp } from '../../lib/schemas.ts';
import { Pagination, TeamParams } from '../teams/schemas.ts';
import { getTeam } from '../teams/service.ts';
import { changeCredits, listLedger } from './service.ts';

const LedgerEntry = Type.Object(
  {
    id: Type.String(),
    amount: Type.Integer({ description: 'Positive adds credits, negative takes them' }),
    balance_after: Type.Integer(),
    kind: Type.Enum(['grant', 'correction', 'charge', 'refund', 'purchase']),
    reason: Type.String(),
    generation_id: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
  },
  { $id: 'LedgerEntry', title: 'LedgerEntry' },
);

const GrantBody = Type.Object({
  amount: Type.Integer({
    minimum: -1_000_000_000,
    maximum: 1_000_000_000,
    not: { const: 0 },
    description: 'Credits to add; a negative amount is a correction and may not take the balance below zero',
  }),
  reason: Type.String({ minLength: 1, maxLength: 500 }),
});

export default async function creditAdminRoutes(app: App): Promise<void> {
  const tags = ['Admin'];

  app.post(
    '/admin/v1/teams/:team_id/credits',
    {
      schema: {
        tags,
        summary: 'Grant credits (or correct the balance with a negative amount)',
        params: TeamParams,
        body: GrantBody,
        response: {
          201: Type.Object({ balance: Type.Integer(), entry: LedgerEntry }),
          ...errorResponses(400, 401, 402, 404),
        },
      },
    },
    async (request, reply) => {
      const { amount, reason } = request.body;
      const entry = await withTransaction(app.deps.pool, (client) =>
        changeCredits(client, {
          teamId: request.params.team_id,
          amount,
          kind: amount > 0 ? 'grant' : 'correction',
          reason,
        }),
      );
      reply.code(201);
      return { balance: entry.balance_after, entry };
    },
  );

  app.get(
    '/admin/v1/teams/:team_id/ledger',
    {
      schema: {
        tags,
        summary: "A team's ledger entries, newest first",
        params: TeamParams,
        querystring: Pagination,
        response: { 200: Type.Array(LedgerEntry), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      await getTeam(app.deps.pool, request.params.team_id);
      return listLedger(app.deps.pool, request.params.team_id, request.query.limit, request.query.before);
    },
  );
}

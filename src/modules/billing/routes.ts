import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { errorResponses } from '../../lib/schemas.ts';
import { getBalance } from '../credits/service.ts';
import { CreditPlan } from './schemas.ts';

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
}

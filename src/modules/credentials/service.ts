// The vendor credentials the operator manages through the admin API: several keys per vendor,
// picked by weight at each submit. The one a vendor's environment variable sets is listed beside
// them, read-only. A secret is sealed at rest and never shown again after it is given (only its
// last four characters); every change is an audit row and reloads every process.
import type pg from 'pg';
import type { Deps } from '../../app-types.ts';
import { withTransaction } from '../../db/pool.ts';
import { AppError, invalidField, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';

import { envCredentialId } from '../../providers/credentials.ts';
import { VENDORS } from '../../providers/vendors.ts';
import { recordChange } from '../live-config/sql.ts';
import * as sql from './sql.ts';

export interface CredentialAnswer {
  id: string;
  provider: string;
  name: string;
  secret_last4: string;
  base_url: string | null;
  weight: number;
  rpm: number | null;
  max_in_flight: number | null;
  state: 'active' | 'cooling' | 'disabled';
  reason: string | null;
  cooling_until: string | null;
  source: 'api' | 'env';
  created_at: string | null;
}

export interface NewCredential {
  provider: string;
  name: string;
  secret: string;
  base_url?: string | null;
  weight?: number;
  rpm?: number | null;
  max_in_flight?: number | null;
  enabled?: boolean;
}

export type CredentialChange = Partial<Omit<NewCredential, 'provider'>>;

type CredentialDeps = Pick<Deps, 'pool' | 'providers' | 'secrets'>;

const last4 = (secret: string): string => secret.slice(-4);

/** The vendors that take credentials through the admin API. */
export const CREDENTIAL_VENDORS: readonly string[] = VENDORS.filter((v) => v.connectWith).map((v) => v.id);

function answerOf(row: sql.CredentialRow, health: sql.HealthRow | undefined): CredentialAnswer {
  const state = !row.enabled ? 'disabled' : (health?.state ?? 'active');
  return {
    id: row.id,
    provider: row.provider,
    name: row.name,
    secret_last4: row.secret_last4,
    base_url: row.base_url,
    weight: row.weight,
    rpm: row.rpm,
    max_in_flight: row.max_in_flight,
    state,
    reason: !row.enabled ? 'disabled by the operator' : (health?.reason ?? null),
    cooling_until: row.enabled ? (health?.cooling_until?.toISOString() ?? null) : null,
    source: 'api',
    created_at: row.created_at.toISOString(),
  };
}

/** What an audit row says of a credential: never its secret. */
function audited(row: sql.CredentialRow): Record<string, unknown> {
  const { secret: _secret, created_at: _at, ...rest } = row;
  return rest;
}

function envAnswers(deps: CredentialDeps, provider?: string): CredentialAnswer[] {
  return deps.providers
    .credentials(provider)
    .filter((c) => c.source === 'env')
    .map((c) => ({
      id: c.id,
      provider: c.provider,
      name: 'environment',
      secret_last4: last4(c.secret),
      base_url: null,
      weight: c.weight,
      rpm: null,
      max_in_flight: null,
      state: c.state,
      reason: c.reason,
      cooling_until: c.coolingUntil?.toISOString() ?? null,
      source: 'env',
      created_at: null,
    }));
}

function checkBaseUrl(url: string | null | undefined): void {
  if (url === undefined || url === null) return;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidField('base_url', 'must be an absolute http(s) URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw invalidField('base_url', 'must be an absolute http(s) URL');
  }
}

const readOnly = (id: string): AppError =>
  new AppError(
    'read_only',
    `Credential '${id}' is set by the environment and cannot be changed here: change the vendor's environment variable and restart (only {"enabled": true}, after the service disabled it, is accepted)`,
  );

export async function listCredentials(deps: CredentialDeps, provider?: string): Promise<CredentialAnswer[]> {
  const [rows, health] = await Promise.all([sql.selectCredentials(deps.pool), sql.selectHealth(deps.pool)]);
  const byId = new Map(health.map((h) => [h.credential_id, h]));
  const stored = rows
    .filter((r) => provider === undefined || r.provider === provider)
    .map((r) => answerOf(r, byId.get(r.id)));
  return [...envAnswers(deps, provider), ...stored];
}

export async function addCredential(
  deps: CredentialDeps,
  actor: string,
  body: NewCredential,
): Promise<CredentialAnswer> {
  if (!CREDENTIAL_VENDORS.includes(body.provider)) {
    throw invalidField('provider', `must be one of ${CREDENTIAL_VENDORS.join(', ')}`);
  }
  checkBaseUrl(body.base_url);
  // A name is kept without the spaces around it (as the console's form sends it).
  const name = body.name.trim();
  return withTransaction(deps.pool, async (client) => {
    const row = await sql.insertCredential(client, {
      id: newId('cred'),
      provider: body.provider,
      name,
      secret: deps.secrets.seal(body.secret),
      secret_last4: last4(body.secret),
      base_url: body.base_url ?? null,
      weight: body.weight ?? 1,
      rpm: body.rpm ?? null,
      max_in_flight: body.max_in_flight ?? null,
      enabled: body.enabled ?? true,
    });
    if (!row) throw invalidField('name', `${body.provider} already has a credential named '${name}'`);
    await recordChange(client, {
      actor,
      action: 'credential.create',
      target: `credential:${row.id}`,
      before: null,
      after: audited(row),
    });
    return answerOf(row, undefined);
  });
}

/** Re-enables an environment credential the service disabled. */
async function enableEnv(deps: CredentialDeps, actor: string, id: string): Promise<CredentialAnswer> {
  const env = envAnswers(deps).find((c) => c.id === id);
  if (!env) throw notFound('Credential', id);
  await withTransaction(deps.pool, async (client) => {
    const before = await sql.selectHealthOf(client, id);
    if (!before) return;
    await sql.clearHealth(client, id);
    await recordChange(client, {
      actor,
      action: 'credential.enable',
      target: `credential:${id}`,
      before: { state: before.state, reason: before.reason },
      after: { state: 'active' },
    });
  });
  return { ...env, state: 'active', reason: null, cooling_until: null };
}

export async function changeCredential(
  deps: CredentialDeps,
  actor: string,
  id: string,
  body: CredentialChange,
): Promise<CredentialAnswer> {
  if (id.startsWith(envCredentialId(''))) {
    const keys = Object.keys(body);
    if (keys.length === 1 && body.enabled === true) return enableEnv(deps, actor, id);
    if (!envAnswers(deps).some((c) => c.id === id)) throw notFound('Credential', id);
    throw readOnly(id);
  }
  checkBaseUrl(body.base_url);
  const name = body.name?.trim();
  return withTransaction(deps.pool, async (client) => {
    const before = await sql.selectCredential(client, id, true);
    if (!before) throw notFound('Credential', id);
    if (name !== undefined && name !== before.name) {
      const taken = await sql.selectCredentialByName(client, before.provider, name);
      if (taken) throw invalidField('name', `${before.provider} already has a credential named '${name}'`);
    }
    const after = await sql.updateCredential(client, {
      ...before,
      name: name ?? before.name,
      secret: body.secret === undefined ? before.secret : deps.secrets.seal(body.secret),
      secret_last4: body.secret === undefined ? before.secret_last4 : last4(body.secret),
      base_url: body.base_url === undefined ? before.base_url : body.base_url,
      weight: body.weight ?? before.weight,
      rpm: body.rpm === undefined ? before.rpm : body.rpm,
      max_in_flight: body.max_in_flight === undefined ? before.max_in_flight : body.max_in_flight,
      enabled: body.enabled ?? before.enabled,
    });
    // Enabled (again) by the operator, or given a new secret: whatever the service found is forgotten.
    if (body.enabled === true || body.secret !== undefined) await sql.clearHealth(client, id);
    const health = await sql.selectHealthOf(client, id);
    await recordChange(client, {
      actor,
      action: 'credential.update',
      target: `credential:${id}`,
      before: audited(before),
      after: { ...audited(after), ...(body.secret !== undefined ? { secret_changed: true } : {}) },
    });
    return answerOf(after, health);
  });
}

export async function removeCredential(deps: CredentialDeps, actor: string, id: string): Promise<void> {
  if (id.startsWith(envCredentialId(''))) {
    if (!envAnswers(deps).some((c) => c.id === id)) throw notFound('Credential', id);
    throw readOnly(id);
  }
  await withTransaction(deps.pool, async (client: pg.PoolClient) => {
    const before = await sql.selectCredential(client, id, true);
    if (!before) throw notFound('Credential', id);
    await sql.deleteCredential(client, id);
    await recordChange(client, {
      actor,
      action: 'credential.delete',
      target: `credential:${id}`,
      before: audited(before),
      after: null,
    });
  });
}

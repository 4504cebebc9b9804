import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type pg from 'pg';
import { createSecretBox } from './lib/secret-box.ts';
import { generateAdminToken } from './lib/secrets.ts';
import { createApiKey } from './modules/api-keys/service.ts';
import { countTeams, createTeam } from './modules/teams/service.ts';

export const DEFAULT_TEAM_CREDITS = 10_000;

export interface Credentials {
  admin_token: string;
  /** What stored secrets (webhook signing secrets) are sealed under, made on the first start. */
  secrets_key?: string;
  api_key?: string;
  team_id?: string;
}

export interface LocalSetup {
  adminToken: string;
  /** The key material of stored secrets (SECRETS_KEY, or the one kept in credentials.json). */
  secretsKey: string;
  /** The admin token was made by this start (to be shown once). */
  adminTokenIsNew: boolean;
  /** Set only on the very first start, to be shown once. */
  created?: { apiKey: string; teamId: string };
}

async function readCredentials(file: string): Promise<Credentials | undefined> {
  if (!existsSync(file)) return undefined;
  return JSON.parse(await readFile(file, 'utf8')) as Credentials;
}

/**
 * Local (embedded database) start: keeps the admin token in `<dataDir>/credentials.json` (0600)
 * and, when the database has no team yet, creates a default team with starting credits and an
 * API key, written to the same file.
 */
export async function prepareLocalSetup(
  pool: pg.Pool,
  dataDir: string,
  envAdminToken?: string,
  envSecretsKey?: string,
): Promise<LocalSetup> {
  const file = join(dataDir, 'credentials.json');
  const stored = await readCredentials(file);
  const adminTokenIsNew = !envAdminToken && !stored?.admin_token;
  const adminToken = envAdminToken ?? stored?.admin_token ?? generateAdminToken();
  // Its own key, not derived from the admin token: changing ADMIN_TOKEN must not lose the secrets.
  const secretsKeyIsNew = !envSecretsKey && !stored?.secrets_key;
  const secretsKey = envSecretsKey ?? stored?.secrets_key ?? randomBytes(32).toString('base64url');
  const credentials: Credentials = {
    ...stored,
    admin_token: adminToken,
    ...(secretsKeyIsNew ? { secrets_key: secretsKey } : {}),
  };

  let created: LocalSetup['created'];
  if ((await countTeams(pool)) === 0) {
    const team = await createTeam(pool, createSecretBox(secretsKey), {
      name: 'Default team',
      credits: DEFAULT_TEAM_CREDITS,
    });
    const key = await createApiKey(pool, team.id, 'Default key');
    credentials.api_key = key.key;
    credentials.team_id = team.id;
    created = { apiKey: key.key, teamId: team.id };
  }
  if (created || adminTokenIsNew || secretsKeyIsNew) {
    await writeFile(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  }
  return { adminToken, secretsKey, adminTokenIsNew, created };
}

import type { Queryable } from '../../db/pool.ts';

export interface CredentialRow {
  id: string;
  provider: string;
  name: string;
  /** Sealed (lib/secret-box.ts). */
  secret: string;
  secret_last4: string;
  base_url: string | null;
  weight: number;
  rpm: number | null;
  max_in_flight: number | null;
  enabled: boolean;
  created_at: Date;
}

export interface HealthRow {
  credential_id: string;
  provider: string;
  state: 'cooling' | 'disabled';
  reason: string | null;
  cooling_until: Date | null;
}

const COLUMNS = 'id, provider, name, secret, secret_last4, base_url, weight, rpm, max_in_flight, enabled, created_at';

export async function selectCredentials(db: Queryable): Promise<CredentialRow[]> {
  return (await db.query<CredentialRow>(`select ${COLUMNS} from vendor_credentials order by provider, created_at, id`))
    .rows;
}

export async function selectCredential(db: Queryable, id: string, lock = false): Promise<CredentialRow | undefined> {
  const { rows } = await db.query<CredentialRow>(
    `select ${COLUMNS} from vendor_credentials where id = $1::text ${lock ? 'for update' : ''}`,
    [id],
  );
  return rows[0];
}

export async function selectCredentialByName(
  db: Queryable,
  provider: string,
  name: string,
): Promise<CredentialRow | undefined> {
  const { rows } = await db.query<CredentialRow>(
    `select ${COLUMNS} from vendor_credentials where provider = $1::text and name = $2::text`,
    [provider, name],
  );
  return rows[0];
}

export async function insertCredential(db: Queryable, row: Omit<CredentialRow, 'created_at'>): Promise<CredentialRow> {
  const { rows } = await db.query<CredentialRow>(
    `insert into vendor_credentials (id, provider, name, secret, secret_last4, base_url, weight, rpm, max_in_flight, enabled)
     values ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::int, $8::int, $9::int, $10::boolean)
     on conflict (provider, name) do nothing
     returning ${COLUMNS}`,
    [
      row.id,
      row.provider,
      row.name,
      row.secret,
      row.secret_last4,
      row.base_url,
      row.weight,
      row.rpm,
      row.max_in_flight,
      row.enabled,
    ],
  );
  return rows[0] as CredentialRow;
}

export async function updateCredential(db: Queryable, row: CredentialRow): Promise<CredentialRow> {
  const { rows } = await db.query<CredentialRow>(
    `update vendor_credentials set name = $2::text, secret = $3::text, secret_last4 = $4::text, base_url = $5::text,
       weight = $6::int, rpm = $7::int, max_in_flight = $8::int, enabled = $9::boolean
     where id = $1::text returning ${COLUMNS}`,
    [row.id, row.name, row.secret, row.secret_last4, row.base_url, row.weight, row.rpm, row.max_in_flight, row.enabled],
  );
  return rows[0] as CredentialRow;
}

export async function deleteCredential(db: Queryable, id: string): Promise<void> {
  await db.query('delete from vendor_credentials where id = $1::text', [id]);
  await clearHealth(db, id);
}

export async function selectHealth(db: Queryable): Promise<HealthRow[]> {
  return (
    await db.query<HealthRow>('select credential_id, provider, state, reason, cooling_until from credential_health')
  ).rows;
}

export async function selectHealthOf(db: Queryable, id: string): Promise<HealthRow | undefined> {
  const { rows } = await db.query<HealthRow>(
    'select credential_id, provider, state, reason, cooling_until from credential_health where credential_id = $1::text for update',
    [id],
  );
  return rows[0];
}

export async function saveHealth(db: Queryable, row: HealthRow): Promise<void> {
  await db.query(
    `insert into credential_health (credential_id, provider, state, reason, cooling_until)
     values ($1::text, $2::text, $3::text, $4::text, $5::timestamptz)
     on conflict (credential_id) do update set state = excluded.state, reason = excluded.reason,
       cooling_until = excluded.cooling_until, updated_at = now()`,
    [row.credential_id, row.provider, row.state, row.reason, row.cooling_until],
  );
}

/** The credential is active again. */
export async function clearHealth(db: Queryable, id: string): Promise<void> {
  await db.query('delete from credential_health where credential_id = $1::text', [id]);
}

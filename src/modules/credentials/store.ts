// The vendor credentials of one process: the ones added through the admin API (their secrets
// opened) and the health of every credential, read from PostgreSQL at start and again whenever a
// change is announced on `live_config` (as the live configuration's store does, on a listening
// connection of its own). A credential the vendor refuses is disabled here: a health row, an audit
// row by "system", and the announcement, in one transaction.
import type pg from 'pg';
import { NotifiedReload } from '../../db/notified-reload.ts';
import { withTransaction } from '../../db/pool.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import type { CredentialHealth, CredentialSource, StoredCredential } from '../../providers/credentials.ts';
import { LIVE_CONFIG_CHANNEL, recordChange } from '../live-config/sql.ts';
import * as sql from './sql.ts';

/** Who the service's own changes of a credential's health are recorded as. */
export const SYSTEM_ACTOR = 'system';

type Log = { warn(obj: object, msg: string): void };

/** A change of a credential's health, for the metrics. */
export type CredentialEvent = { provider: string; event: 'disabled' | 'cooling' | 'enabled' };

export class CredentialStore implements CredentialSource {
  private rows: StoredCredential[] = [];
  private healthById = new Map<string, CredentialHealth>();
  private log: Log = { warn: () => undefined };
  private readonly notified: NotifiedReload;
  private readonly pool: pg.Pool;
  private readonly secrets: Pick<SecretBox, 'open'>;
  private readonly counted: (event: CredentialEvent) => void;
  private readonly cooldown: { after: number; seconds: number };
  /** Unavailabilities in a row, by credential (this process's). */
  private readonly inARow = new Map<string, number>();

  /**
   * `cooldown`: after how many unavailabilities in a row a credential cools down, and for how long;
   * `counted`: told each change of a credential's health the service makes (the metrics).
   */
  constructor(
    pool: pg.Pool,
    secrets: Pick<SecretBox, 'open'>,
    cooldown: { after: number; seconds: number },
    counted: (event: CredentialEvent) => void = () => undefined,
  ) {
    this.pool = pool;
    this.secrets = secrets;
    this.cooldown = cooldown;
    this.counted = counted;
    this.notified = new NotifiedReload(pool, {
      channel: LIVE_CONFIG_CHANNEL,
      applicationName: 'genmedia-credentials',
      what: 'credentials',
      read: () => this.read(),
    });
  }

  /** Listens, then reads the credentials (a change between the two is heard). */
  async start(log: Log): Promise<void> {
    this.log = log;
    await this.notified.start(log);
  }

  async stop(): Promise<void> {
    await this.notified.stop();
  }

  stored(): StoredCredential[] {
    return this.rows;
  }

  health(id: string): CredentialHealth | undefined {
    return this.healthById.get(id);
  }

  async disable(id: string, provider: string, reason: string): Promise<void> {
    const after: CredentialHealth = { state: 'disabled', reason, coolingUntil: null };
    // This process stops picking it at once; the others when they hear the announcement.
    this.healthById.set(id, after);
    await withTransaction(this.pool, async (client) => {
      const before = await sql.selectHealthOf(client, id);
      if (before?.state === 'disabled') return;
      await sql.saveHealth(client, { credential_id: id, provider, state: 'disabled', reason, cooling_until: null });
      await recordChange(client, {
        actor: SYSTEM_ACTOR,
        action: 'credential.disable',
        target: `credential:${id}`,
        before: { state: before?.state ?? 'active' },
        after: { state: 'disabled', reason },
      });
    });
    this.counted({ provider, event: 'disabled' });
  }

  async unavailable(id: string, provider: string, reason: string): Promise<boolean> {
    const count = (this.inARow.get(id) ?? 0) + 1;
    this.inARow.set(id, count);
    if (count < this.cooldown.after) return false;
    this.inARow.delete(id);
    await this.cool(id, provider, `unavailable ${count} times in a row: ${reason}`);
    return true;
  }

  served(id: string): void {
    this.inARow.delete(id);
  }

  async checked(id: string, provider: string, usable: boolean, detail: string): Promise<void> {
    if (!usable) {
      await this.cool(id, provider, `its check after the cool-down failed: ${detail}`);
      return;
    }
    this.healthById.delete(id);
    const enabled = await withTransaction(this.pool, async (client) => {
      const before = await sql.selectHealthOf(client, id);
      // Only a cool-down that has run out ends here (not one renewed meanwhile, nor a disabled credential).
      if (before?.state !== 'cooling' || (before.cooling_until && before.cooling_until.getTime() > Date.now())) {
        return false;
      }
      await sql.clearHealth(client, id);
      await recordChange(client, {
        actor: SYSTEM_ACTOR,
        action: 'credential.enable',
        target: `credential:${id}`,
        before: { state: 'cooling', reason: before.reason },
        after: { state: 'active', check: detail },
      });
      return true;
    });
    if (enabled) this.counted({ provider, event: 'enabled' });
  }

  /** Cools a credential down for the configured time. */
  private async cool(id: string, provider: string, reason: string): Promise<void> {
    const until = new Date(Date.now() + this.cooldown.seconds * 1000);
    this.healthById.set(id, { state: 'cooling', reason, coolingUntil: until });
    const cooled = await withTransaction(this.pool, async (client) => {
      const before = await sql.selectHealthOf(client, id);
      if (before?.state === 'disabled') return false;
      await sql.saveHealth(client, { credential_id: id, provider, state: 'cooling', reason, cooling_until: until });
      await recordChange(client, {
        actor: SYSTEM_ACTOR,
        action: 'credential.cool',
        target: `credential:${id}`,
        before: { state: before?.state ?? 'active' },
        after: { state: 'cooling', reason, cooling_until: until.toISOString() },
      });
      return true;
    });
    if (cooled) this.counted({ provider, event: 'cooling' });
  }

  /** Reads the credentials again (folded with a read under way). */
  reload(): Promise<void> {
    return this.notified.reload();
  }

  private async read(): Promise<void> {
    const [rows, health] = await Promise.all([sql.selectCredentials(this.pool), sql.selectHealth(this.pool)]);
    const opened: StoredCredential[] = [];
    for (const row of rows) {
      try {
        opened.push({
          id: row.id,
          provider: row.provider,
          name: row.name,
          secret: this.secrets.open(row.secret),
          baseUrl: row.base_url,
          weight: row.weight,
          rpm: row.rpm,
          maxInFlight: row.max_in_flight,
          enabled: row.enabled,
        });
      } catch (err) {
        // The secret's key material is not this process's: the credential cannot be used here.
        this.log.warn({ credential: row.id, err: (err as Error).message }, 'credentials: a secret cannot be opened');
      }
    }
    this.rows = opened;
    this.healthById = new Map(
      health.map((h) => [h.credential_id, { state: h.state, reason: h.reason, coolingUntil: h.cooling_until }]),
    );
  }
}

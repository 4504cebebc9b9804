// A copy of some rows kept in a process's memory and read again whenever a channel is notified:
// one connection of its own LISTENs on the channel, and after that connection is lost it listens
// again with backoff and reads again (what changed meanwhile was not heard). Reads asked for while
// one runs are folded into one more read after it, so a burst of changes costs two reads.
import pg from 'pg';

const RELISTEN_MIN_MS = 250;
const RELISTEN_MAX_MS = 10_000;

interface Log {
  warn(obj: object, msg: string): void;
}

export interface NotifiedReloadOptions {
  /** The channel the changes are announced on. */
  channel: string;
  /** The listening connection's application_name (what pg_stat_activity shows). */
  applicationName: string;
  /** What is kept, for the log's messages. */
  what: string;
  /** Reads the rows again into the caller's memory. */
  read: () => Promise<void>;
  /**
   * Takes each notice's payload in place of a read (the notice says what changed); reads are then
   * made only when it starts listening and after a lost connection.
   */
  notice?: (payload: string) => void;
  /**
   * Proves the listening connection alive this often: a `heartbeat` notice sent on the channel
   * (through the pool) must come back on it. Without a notice heard for two periods and a second,
   * `session` answers undefined (a connection cut without a word is otherwise only found out when
   * the system gives up on it, minutes later).
   */
  heartbeatMs?: number;
}

/** The payload of a heartbeat notice: heard, it reads nothing. */
const HEARTBEAT = 'heartbeat';

export class NotifiedReload {
  private client: pg.Client | undefined;
  private closed = false;
  private relistenMs = RELISTEN_MIN_MS;
  private reloading: Promise<void> | undefined;
  private again = false;
  private log: Log = { warn: () => undefined };
  private readonly pool: pg.Pool;
  private readonly options: NotifiedReloadOptions;

  constructor(pool: pg.Pool, options: NotifiedReloadOptions) {
    this.pool = pool;
    this.options = options;
  }

  /**
   * The listening session now: a number that changes each time a connection starts listening,
   * undefined while none listens (before start, while lost, after stop) and, with heartbeats,
   * while none has been heard for two periods and a second. What was read in one session is known
   * to be heard of since only while the session is the same.
   */
  get session(): number | undefined {
    if (this.client === undefined) return undefined;
    const beat = this.options.heartbeatMs;
    if (beat !== undefined && Date.now() - this.heardAt > 2 * beat + 1000) return undefined;
    return this.sessions;
  }
  private sessions = 0;
  /** When the listening connection last heard a notice (or started listening). */
  private heardAt = 0;
  private heartbeat: NodeJS.Timeout | undefined;

  /** Listens, then reads (a change between the two is heard). */
  async start(log: Log): Promise<void> {
    this.log = log;
    this.closed = false;
    await this.listen();
    await this.reload();
  }

  /** Closes the listening connection; no read follows. */
  async stop(): Promise<void> {
    this.closed = true;
    clearTimeout(this.heartbeat);
    this.heartbeat = undefined;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  /** Reads again; a request for another read while one runs runs once after it. */
  reload(): Promise<void> {
    if (this.reloading) {
      this.again = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      try {
        do {
          this.again = false;
          await this.options.read();
        } while (this.again);
      } finally {
        this.reloading = undefined;
      }
    })();
    return this.reloading;
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ ...this.pool.options, application_name: this.options.applicationName });
    client.on('notification', (notice) => {
      if (this.closed) return;
      this.heardAt = Date.now();
      if (notice.payload === HEARTBEAT) return;
      if (this.options.notice) {
        this.options.notice(notice.payload ?? '');
        return;
      }
      this.reload().catch((err: unknown) => this.log.warn({ err }, `${this.options.what}: could not reload`));
    });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, undefined));
    await client.connect();
    await client.query(`listen ${this.options.channel}`);
    this.sessions += 1;
    this.heardAt = Date.now();
    this.client = client;
    this.relistenMs = RELISTEN_MIN_MS;
    this.beat();
  }

  /** Sends heartbeat notices while it listens (one at a time; a failed one is simply not heard). */
  private beat(): void {
    const every = this.options.heartbeatMs;
    if (every === undefined || this.heartbeat !== undefined) return;
    const send = () => {
      this.heartbeat = undefined;
      if (this.closed || this.client === undefined) return;
      this.pool
        .query('select pg_notify($1::text, $2::text)', [this.options.channel, HEARTBEAT])
        .catch(() => undefined)
        .finally(() => {
          if (!this.closed && this.client !== undefined && this.heartbeat === undefined) {
            this.heartbeat = setTimeout(send, every);
            this.heartbeat.unref();
          }
        });
    };
    this.heartbeat = setTimeout(send, every);
    this.heartbeat.unref();
  }

  private lost(client: pg.Client, err: Error | undefined): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    if (this.closed) return;
    this.log.warn({ err }, `${this.options.what}: the listening connection was lost; listening again`);
    const retry = () => {
      if (this.closed) return;
      this.listen()
        .then(() => this.reload())
        .catch(() => {
          this.relistenMs = Math.min(this.relistenMs * 2, RELISTEN_MAX_MS);
          setTimeout(retry, this.relistenMs).unref();
        });
    };
    setTimeout(retry, this.relistenMs).unref();
  }
}

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
}

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
   * undefined while none listens (before start, while lost, after stop). What was read in one
   * session is known to be heard of since only while the session is the same.
   */
  get session(): number | undefined {
    return this.client === undefined ? undefined : this.sessions;
  }
  private sessions = 0;

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
    client.on('notification', () => {
      if (this.closed) return;
      this.reload().catch((err: unknown) => this.log.warn({ err }, `${this.options.what}: could not reload`));
    });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, undefined));
    await client.connect();
    await client.query(`listen ${this.options.channel}`);
    this.sessions += 1;
    this.client = client;
    this.relistenMs = RELISTEN_MIN_MS;
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

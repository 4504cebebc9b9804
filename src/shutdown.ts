import type pino from 'pino';
import type { EmbeddedDatabase } from './db/embedded.ts';

type Closer = () => Promise<unknown>;

/**
 * Signals this close together are one request to stop. A supervisor that signals the whole
 * process group (systemd's default, `timeout`, container runtimes) and npm, which passes the
 * signal on to its script, deliver the same stop twice within milliseconds; a terminal's Ctrl-C
 * does the same. Only a signal sent later (someone insisting) forces the exit.
 */
export const SAME_STOP_WINDOW_MS = 1000;

/** How long a forced exit waits for the embedded PostgreSQL to stop. */
const DATABASE_STOP_WAIT_MS = 10_000;

export interface Shutdown {
  /**
   * What a graceful stop closes, in order: whatever is started later is put first
   * (`unshift`), so the API stops taking work before the worker and the database go.
   */
  closers: Closer[];
  /** The embedded PostgreSQL, stopped on every way out, a forced one included. */
  useDatabase(database: EmbeddedDatabase): void;
  /** Says the start is over: from now on a signal stops gracefully. */
  started(): void;
  /** Ends the process after a fatal error: the embedded database is stopped first. */
  fail(code?: number): Promise<never>;
  /** Closes what is open so far, in order (a start that fails half-way). */
  closeAll(): Promise<void>;
}

/**
 * Installs the process's signal and fatal-error handling at once, before anything is started:
 * a signal during the start stops the embedded database and exits; after `started()` it stops
 * gracefully within `timeoutMs`, then exits anyway (the database still stopped).
 */
export function installShutdown(log: pino.Logger, timeoutMs: number): Shutdown {
  const closers: Closer[] = [];
  let database: EmbeddedDatabase | undefined;
  let running = false;
  let firstSignalAt: number | undefined;
  let leaving = false;

  const closeAll = async () => {
    for (const close of closers) await close();
  };

  /** Stops the embedded database (bounded), then exits; a second call exits at once. */
  const leave = async (code: number): Promise<never> => {
    if (leaving) process.exit(code);
    leaving = true;
    if (database) {
      const stopping = database.stop();
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, DATABASE_STOP_WAIT_MS);
      });
      await Promise.race([stopping, waited]).catch((err: unknown) =>
        log.error({ err }, 'the embedded PostgreSQL did not stop cleanly'),
      );
      clearTimeout(timer);
    }
    process.exit(code);
  };

  const graceful = (signal: string) => {
    log.info({ signal }, 'shutting down: finishing in-flight work');
    const timer = setTimeout(() => {
      log.error({ timeoutMs }, 'shutdown took too long: exiting');
      void leave(1);
    }, timeoutMs);
    timer.unref();
    closeAll().then(
      () => {
        // A forced exit under way (the timeout) exits with its own code.
        if (leaving) return;
        log.info('stopped cleanly');
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, 'error during shutdown');
        void leave(1);
      },
    );
  };

  const onSignal = (signal: NodeJS.Signals) => {
    const now = Date.now();
    if (firstSignalAt === undefined) {
      firstSignalAt = now;
      if (running) {
        graceful(signal);
      } else {
        log.warn({ signal }, 'signal during the start: stopping the database and exiting');
        void leave(1);
      }
      return;
    }
    if (now - firstSignalAt < SAME_STOP_WINDOW_MS) {
      log.info({ signal }, 'the same stop signalled again (a process group and npm both pass it on): still stopping');
      return;
    }
    log.warn({ signal }, 'second signal: exiting now');
    void leave(1);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  process.on('uncaughtException', (err) => {
    log.fatal({ err }, 'uncaught exception');
    void leave(1);
  });
  // Whatever ends the process, a process.exit anywhere included: the database is asked to stop.
  process.on('exit', () => database?.stopWithoutWaiting());

  return {
    closers,
    useDatabase: (db) => {
      database = db;
    },
    started: () => {
      running = true;
    },
    fail: (code = 1) => leave(code),
    closeAll,
  };
}

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../src/db/embedded.ts';

/**
 * A PostgreSQL of its own (the embedded binaries) that a test can stop, start again on the same
 * port, hang (SIGSTOP) and resume, as an operator's outage would.
 */
export class StandaloneDatabase {
  #db: EmbeddedDatabase | undefined;
  #port: number | undefined;
  readonly dir: string;
  constructor(dir: string) {
    this.dir = dir;
  }
  /** Starts the server; the first start picks a free port, every later one takes the same. */
  async start(): Promise<EmbeddedDatabase> {
    this.#db = await startEmbeddedPostgres(this.dir, () => undefined, 'genmedia', { port: this.#port });
    this.#port = this.#db.port;
    return this.#db;
  }
  async stop(): Promise<void> {
    await this.#db?.stop();
  }
  /** Every process of the server: the postmaster first (so no new backend starts), then its children. */
  async #pids(): Promise<number[]> {
    const pid = Number((await readFile(join(this.dir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    const children: number[] = [];
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
      // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    }
    return [pid, ...children];
  }
  /** SIGSTOP hangs the whole server (every backend); SIGCONT resumes it. */
  async signal(signal: 'SIGSTOP' | 'SIGCONT'): Promise<void> {
    const pids = await this.#pids();
    for (const pid of signal === 'SIGSTOP' ? pids : pids.reverse()) {
      try {
        process.kill(pid, signal);
      } catch {
        // a backend that ended meanwhile
      }
    }
  }
}

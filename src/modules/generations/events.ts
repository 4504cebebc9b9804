// Live status: clients watch a generation over Server-Sent Events and get its status record on every
// change. Changes come from PostgreSQL (LISTEN on `generation_events`, notified by triggers at
// commit; migration 0016), so a change made by any process reaches the watchers of every API
// process. Each process holds one listening connection, reads a changed generation once for all its
// watchers (one statement for every generation changed in the same tick), and writes the record to
// each. An event's id is a digest of the record: a client that reconnects with `Last-Event-ID` gets
// the record at once if it changed meanwhile (each event is the whole state, so the latest one is
// all it missed), and nothing if it did not.
import { createHash } from 'node:crypto';
import type { Writable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import pg from 'pg';
import type { App } from '../../app-types.ts';
import { readStatuses, type StatusRow } from '../../engine/index.ts';
import { type StatusRecord, toStatusRecord } from '../../engine/status.ts';
import { AppError } from '../../lib/errors.ts';

/** The channel the triggers notify. */
export const GENERATION_EVENTS_CHANNEL = 'generation_events';
/** How long a client waits before reconnecting a dropped stream (the `retry:` field). */
const CLIENT_RETRY_MS = 2000;
// How long to wait before listening again after the connection was lost, doubling to the maximum.
const RELISTEN_MIN_MS = 250;
const RELISTEN_MAX_MS = 10_000;

const TERMINAL = new Set(['completed', 'failed']);

/** The id of an event: a digest of the record it carries. */
export function eventId(json: string): string {
  return createHash('sha256').update(json).digest('base64url').slice(0, 22);
}

/** A status record as an event, made once for every watcher of its generation. */
interface StatusEvent {
  id: string;
  /** The whole `id:`, `event:` and `data:` block, ready to write. */
  frame: Buffer;
  terminal: boolean;
}

/** The event of a record. */
export function statusEvent(record: StatusRecord): StatusEvent {
  const json = JSON.stringify(record);
  const id = eventId(json);
  return {
    id,
    frame: Buffer.from(`id: ${id}\nevent: status\ndata: ${json}\n\n`),
    terminal: TERMINAL.has(record.status),
  };
}

/** Writes to this many streams, then lets other work run: a large fan-out does not hold the process. */
const WRITES_PER_TURN = 1000;

/** One client's stream. */
class Watcher {
  /** The id of the last record this client has (given by it on reconnect, or sent since). */
  private last: string | undefined;
  /** A record held back while the socket drains: only the newest one matters. */
  private pending: StatusEvent | undefined;
  closed = false;
  readonly generationId: string;
  private readonly res: Writable;
  private readonly onEnd: (watcher: Watcher) => void;

  constructor(generationId: string, res: Writable, lastEventId: string | undefined, onEnd: (watcher: Watcher) => void) {
    this.generationId = generationId;
    this.res = res;
    this.onEnd = onEnd;
    this.last = lastEventId;
    res.on('close', () => this.end());
    res.on('drain', () => {
      const pending = this.pending;
      this.pending = undefined;
      if (pending) this.write(pending);
    });
  }

  /** Sends the event unless the client has its record; ends the stream after a terminal one. */
  send(event: StatusEvent): void {
    if (this.closed) return;
    if (event.id === this.last) {
      if (event.terminal) this.end();
      return;
    }
    this.last = event.id;
    if (this.res.writableNeedDrain) {
      this.pending = event;
      return;
    }
    this.write(event);
  }

  private write(event: StatusEvent): void {
    if (this.closed) return;
    this.res.write(event.frame);
    if (event.terminal) this.end();
  }

  keepAlive(): void {
    if (!this.closed && !this.res.writableNeedDrain) this.res.write(': keep-alive\n\n');
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    this.pending = undefined;
    if (!this.res.writableEnded) this.res.end();
    this.onEnd(this);
  }
}

export interface GenerationWatchOptions {
  /** The pool whose settings the listening connection uses; status records are read through it. */
  pool: pg.Pool;
  /** The status rows of generations by id. */
  readStatuses(ids: string[]): Promise<StatusRow[]>;
  log: { warn(obj: object, msg: string): void };
  /** How often an idle stream gets a comment, so proxies and clients keep it open (EVENTS_KEEP_ALIVE_MS). */
  keepAliveMs: number;
  /** Streams the process holds open, in all and per team (EVENTS_MAX_STREAMS, EVENTS_MAX_STREAMS_PER_TEAM). */
  maxStreams: { total: number; perTeam: number };
}

/** When a client refused a stream should try again. */
const STREAM_RETRY_AFTER_S = 5;

/** A place among the process's streams, held from before the answer starts until the stream ends. */
export interface StreamSlot {
  /** Gives the place back (once; again is harmless). */
  release(): void;
}

/** The watchers of one process, and its listening connection (opened with the first watcher). */
export class GenerationWatch {
  private readonly watchers = new Map<string, Set<Watcher>>();
  /** Places taken, in all and per team (a stream being opened holds one too). */
  private slots = 0;
  private readonly teamSlots = new Map<string, number>();
  private readonly changed = new Set<string>();
  private flushing = false;
  private client: pg.Client | undefined;
  private listening: Promise<void> | undefined;
  private relistenMs = RELISTEN_MIN_MS;
  private closed = false;
  private readonly keepAliveTimer: NodeJS.Timeout;
  private readonly options: GenerationWatchOptions;

  constructor(options: GenerationWatchOptions) {
    this.options = options;
    // One timer for every stream, not one each.
    this.keepAliveTimer = setInterval(() => {
      for (const set of this.watchers.values()) for (const watcher of set) watcher.keepAlive();
    }, options.keepAliveMs);
    this.keepAliveTimer.unref();
  }

  /** Streams watched now (for metrics and tests). */
  count(): number {
    let n = 0;
    for (const set of this.watchers.values()) n += set.size;
    return n;
  }

  /**
   * Takes a place for one of the team's streams, or refuses (429 `rate_limited` with Retry-After)
   * when the process or the team holds its most: one key cannot use up the file descriptors.
   */
  admit(teamId: string): StreamSlot {
    const { total, perTeam } = this.options.maxStreams;
    const held = this.teamSlots.get(teamId) ?? 0;
    const headers = { 'retry-after': String(STREAM_RETRY_AFTER_S) };
    if (held >= perTeam) {
      throw new AppError(
        'rate_limited',
        `The team already holds ${perTeam} live-status streams, its most: close one (or poll the status) and try again`,
        undefined,
        headers,
      );
    }
    if (this.slots >= total) {
      throw new AppError(
        'rate_limited',
        'This server holds as many live-status streams as it can: poll the status, or try again shortly',
        undefined,
        headers,
      );
    }
    this.slots += 1;
    this.teamSlots.set(teamId, held + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.slots -= 1;
        const left = (this.teamSlots.get(teamId) ?? 1) - 1;
        if (left > 0) this.teamSlots.set(teamId, left);
        else this.teamSlots.delete(teamId);
      },
    };
  }

  /**
   * Starts a stream on `res` (already authorised for the generation) in the place `slot`, given
   * back when the stream ends: the listening connection is ready before the current record is
   * read, so no change between the two is missed.
   */
  async watch(generationId: string, res: Writable, lastEventId: string | undefined, slot: StreamSlot): Promise<void> {
    await this.listen();
    // A client that left while the listening connection opened has no stream to keep.
    if (res.destroyed || res.writableEnded) {
      slot.release();
      return;
    }
    res.write(`retry: ${CLIENT_RETRY_MS}\n\n`);
    const watcher = new Watcher(generationId, res, lastEventId, (w) => {
      slot.release();
      this.forget(w);
    });
    let set = this.watchers.get(generationId);
    if (!set) {
      set = new Set();
      this.watchers.set(generationId, set);
    }
    set.add(watcher);
    this.changed.add(generationId);
    this.scheduleFlush();
  }

  /** Ends every stream and stops listening. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.keepAliveTimer);
    for (const set of [...this.watchers.values()]) for (const watcher of [...set]) watcher.end();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private forget(watcher: Watcher): void {
    const set = this.watchers.get(watcher.generationId);
    set?.delete(watcher);
    if (set?.size === 0) this.watchers.delete(watcher.generationId);
  }

  /** Opens the listening connection once (and again after it was lost). */
  private listen(): Promise<void> {
    if (this.client) return Promise.resolve();
    if (!this.listening) {
      this.listening = this.connect().finally(() => {
        this.listening = undefined;
      });
    }
    return this.listening;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ ...this.options.pool.options, application_name: 'genmedia-events' });
    client.on('notification', (message) => {
      if (message.payload) this.changed.add(message.payload);
      this.scheduleFlush();
    });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, undefined));
    await client.connect();
    await client.query(`listen ${GENERATION_EVENTS_CHANNEL}`);
    this.client = client;
    this.relistenMs = RELISTEN_MIN_MS;
  }

  /**
   * The listening connection is gone (the database restarted, the network dropped): listen again
   * with backoff, then read every watched generation, since changes made meanwhile were not heard.
   */
  private lost(client: pg.Client, err: Error | undefined): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    if (this.closed) return;
    this.options.log.warn({ err }, 'live status: the listening connection was lost; listening again');
    const retry = () => {
      if (this.closed || this.watchers.size === 0) return;
      this.listen().then(
        () => {
          for (const id of this.watchers.keys()) this.changed.add(id);
          this.scheduleFlush();
        },
        () => {
          this.relistenMs = Math.min(this.relistenMs * 2, RELISTEN_MAX_MS);
          setTimeout(retry, this.relistenMs).unref();
        },
      );
    };
    setTimeout(retry, this.relistenMs).unref();
  }

  private scheduleFlush(): void {
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => {
      this.flush()
        .catch((err: unknown) => {
          this.options.log.warn({ err }, 'live status: could not read changed generations');
        })
        .finally(() => {
          this.flushing = false;
          if (this.changed.size > 0) this.scheduleFlush();
        });
    });
  }

  /** Reads every changed generation that has watchers (one statement) and sends each its record. */
  private async flush(): Promise<void> {
    const ids = [...this.changed].filter((id) => this.watchers.has(id));
    this.changed.clear();
    if (ids.length === 0) return;
    let rows: StatusRow[];
    try {
      rows = await this.options.readStatuses(ids);
    } catch (err) {
      // Read again on the next change, or after the database is back (the stream stays open).
      for (const id of ids) this.changed.add(id);
      await new Promise((resolve) => setTimeout(resolve, this.relistenMs));
      throw err;
    }
    let writes = 0;
    for (const row of rows) {
      const event = statusEvent(toStatusRecord(row));
      for (const watcher of [...(this.watchers.get(row.id) ?? [])]) {
        watcher.send(event);
        if (++writes % WRITES_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }
}

/**
 * Answers `request` with the live status stream of a generation the caller may see (checked
 * before). The stream is written to the connection itself, its end the connection's close: no
 * chunk framing per event, which is most of what a fan-out to thousands of streams costs.
 */
export async function streamStatus(
  watch: GenerationWatch,
  request: FastifyRequest,
  reply: FastifyReply,
  generationId: string,
  teamId: string,
): Promise<void> {
  // Refused before the answer starts, so the 429 is an ordinary error answer.
  const slot = watch.admit(teamId);
  reply.hijack();
  const socket = reply.raw.socket;
  if (!socket || socket.destroyed) {
    slot.release();
    return;
  }
  socket.write(
    'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n' +
      'cache-control: no-cache, no-transform\r\nx-accel-buffering: no\r\nconnection: close\r\n' +
      `x-request-id: ${request.id}\r\n\r\n`,
  );
  const lastEventId = request.headers['last-event-id'];
  try {
    await watch.watch(generationId, socket, typeof lastEventId === 'string' ? lastEventId : undefined, slot);
  } catch (err) {
    slot.release();
    request.log.warn({ err }, 'live status: could not start watching');
    socket.end();
  }
}

/** The watch of an app's process: one listening connection for every stream; closed with the app. */
export function createGenerationWatch(app: App): GenerationWatch {
  const watch = new GenerationWatch({
    pool: app.deps.pool,
    readStatuses: (ids) => readStatuses(app.deps.pool, ids),
    log: app.log,
    keepAliveMs: app.deps.config.eventsKeepAliveMs,
    maxStreams: app.deps.config.eventsMaxStreams,
  });
  // Open streams would hold the server open: they end when it starts closing.
  app.addHook('preClose', async () => {
    await watch.close();
  });
  return watch;
}

import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from '../../src/db/embedded.ts';

/** One service process (`node src/server.ts`) that a test can SIGKILL, as an operator's crash would. */
export interface ServiceProcess {
  role: 'api' | 'worker' | 'all';
  url: string;
  child: ChildProcess;
  /** Everything it printed. */
  output(): string;
  /** Resolves when it serves HTTP (api, all) or says its worker started (worker). */
  ready(timeoutMs?: number): Promise<void>;
  /** SIGKILL, and wait for the exit. */
  kill(): Promise<void>;
  /** Whether it is still running. */
  alive(): boolean;
}

export interface ServiceOptions {
  role: 'api' | 'worker' | 'all';
  databaseUrl: string;
  adminToken: string;
  dataDir: string;
  env?: Record<string, string>;
  /** A fixed port (a restarted process keeps its address); a free one otherwise. */
  port?: number;
  /** Gets everything the process prints, as it prints it. */
  onOutput?: (text: string) => void;
}

/** Starts `node src/server.ts` with the given role against an existing database. */
export async function startServiceProcess(options: ServiceOptions): Promise<ServiceProcess> {
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  let printed = '';
  let started = false;
  const child = spawn(process.execPath, ['src/server.ts'], {
    env: {
      ...process.env,
      ROLE: options.role,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: options.databaseUrl,
      ADMIN_TOKEN: options.adminToken,
      DATA_DIR: options.dataDir,
      PUBLIC_BASE_URL: url,
      ALLOW_PRIVATE_URLS: 'true',
      // 'worker started' is said at info.
      LOG_LEVEL: 'info',
      // A start on its own database: the simulator serves what the operator names, and the
      // payment provider is named (the suites run on the simulator and the test checkout).
      SIMULATOR_MODELS: '*',
      PAYMENT_PROVIDER: 'builtin',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (d: Buffer) => {
    options.onOutput?.(d.toString());
    printed += d.toString();
    if (printed.length > 200_000) printed = printed.slice(-100_000);
    if (!started && printed.includes('worker started')) started = true;
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const handle: ServiceProcess = {
    role: options.role,
    url,
    child,
    output: () => printed,
    alive: () => child.exitCode === null && child.signalCode === null,
    ready: async (timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (!handle.alive()) throw new Error(`the ${options.role} process exited at start:\n${printed}`);
        if (options.role === 'worker') {
          if (started) return;
        } else {
          const ok = await fetch(`${url}/readyz`).then(
            (r) => r.status === 200,
            () => false,
          );
          if (ok && (options.role === 'api' || started)) return;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`the ${options.role} process did not become ready:\n${printed}`);
    },
    kill: async () => {
      if (handle.alive()) child.kill('SIGKILL');
      await exited;
    },
  };
  return handle;
}

// Where `genmedia login` keeps the base URL and API key: config.json in the user's config folder
// (XDG_CONFIG_HOME or ~/.config on Linux, Application Support on macOS, APPDATA on Windows; or
// GENMEDIA_CONFIG_DIR), readable by the user only. GENMEDIA_API_KEY and GENMEDIA_BASE_URL override it.
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface StoredConfig {
  base_url?: string;
  api_key?: string;
}

export const DEFAULT_BASE_URL = 'http://localhost:8080';

/** The folder of the CLI's configuration. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GENMEDIA_CONFIG_DIR) return env.GENMEDIA_CONFIG_DIR;
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'genmedia');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'genmedia');
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'genmedia');
}

export const configFile = (env: NodeJS.ProcessEnv = process.env): string => join(configDir(env), 'config.json');

/** The stored configuration; empty when there is none. */
export async function readConfig(env: NodeJS.ProcessEnv = process.env): Promise<StoredConfig> {
  try {
    return JSON.parse(await readFile(configFile(env), 'utf8')) as StoredConfig;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`Cannot read ${configFile(env)}: ${(err as Error).message}`);
  }
}

/** Stores the configuration, readable and writable by the user only (0600, in a 0700 folder). */
export async function writeConfig(config: StoredConfig, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const dir = configDir(env);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = configFile(env);
  const partial = `${file}.${process.pid}.tmp`;
  await writeFile(partial, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await chmod(partial, 0o600);
  await rename(partial, file);
  return file;
}

/** The base URL and key to use: the environment first, then the stored configuration. */
export async function resolveCredentials(
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ baseUrl: string; apiKey: string | undefined }> {
  const stored = await readConfig(env);
  return {
    baseUrl: env.GENMEDIA_BASE_URL || stored.base_url || DEFAULT_BASE_URL,
    apiKey: env.GENMEDIA_API_KEY || stored.api_key,
  };
}

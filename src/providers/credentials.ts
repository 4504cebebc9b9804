// A vendor's credentials: the key its environment variable sets (`env:<vendor>`) and the ones the
// operator adds through the admin API. Each submit picks one of the vendor's active credentials at
// random in proportion to their weights; a job keeps the one it was submitted with.

/** Where a credential stands: picked, cooling down (unavailable a few times in a row), or disabled. */
export type CredentialState = 'active' | 'cooling' | 'disabled';

/** A credential added through the admin API, as the service holds it (its secret opened). */
export interface StoredCredential {
  id: string;
  provider: string;
  name: string;
  secret: string;
  baseUrl: string | null;
  weight: number;
  /** Submits it may make in a window (a minute, CREDENTIAL_RPM_WINDOW_S); null: no cap. */
  rpm: number | null;
  /** Its jobs at the vendor at once (submitted, not finished); null: no cap. */
  maxInFlight: number | null;
  enabled: boolean;
}

/** The health of a credential that is not active. */
export interface CredentialHealth {
  state: 'cooling' | 'disabled';
  reason: string | null;
  coolingUntil: Date | null;
}

/** What the registry reads the credentials and their health from, and tells their failures to. */
export interface CredentialSource {
  /** The credentials added through the admin API (every vendor). */
  stored(): StoredCredential[];
  /** The health of a credential; undefined: active. */
  health(id: string): CredentialHealth | undefined;
  /** Disables a credential the vendor refused (its key, its quota or balance). */
  disable(id: string, provider: string, reason: string): Promise<void>;
  /** Counts one unavailability (5xx, 429, a timeout) in a row; resolves true when it cools down now. */
  unavailable(id: string, provider: string, reason: string): Promise<boolean>;
  /** The credential served: its unavailabilities in a row start again from none. */
  served(id: string): void;
  /** After its cool-down, what the vendor's check found: active again, or cooling again. */
  checked(id: string, provider: string, usable: boolean, detail: string): Promise<void>;
}

/** The id of the credential a vendor's environment variable sets. */
export const envCredentialId = (provider: string): string => `env:${provider}`;

/** One of `list` at random in proportion to its weight (none of positive weight: undefined). */
export function pickWeighted<T extends { weight: number }>(list: readonly T[], random = Math.random): T | undefined {
  const total = list.reduce((sum, c) => sum + Math.max(0, c.weight), 0);
  if (total <= 0) return undefined;
  let at = random() * total;
  for (const c of list) {
    at -= Math.max(0, c.weight);
    if (at < 0 && c.weight > 0) return c;
  }
  return list.filter((c) => c.weight > 0).at(-1);
}

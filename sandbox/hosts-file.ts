// Where the sandbox lives, and its brokers' host directories read from its
// cluster.json without zod: the CLI's no-flag diagnosis starts its host probes
// on them before it loads zod (about 10 ms of the probes' start). The file is
// read again, validated in full (layout.ts), before anything else uses it.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** KR_SANDBOX_HOME, else ~/.kafka-responder/sandbox (layout.ts validates the variable). */
export const sandboxHomeOf = (configured: string | undefined): string => configured ?? join(homedir(), '.kafka-responder', 'sandbox');

export const CLUSTER_FILE = 'cluster.json';

export interface SandboxHost {
  id: number;
  hostDir: string;
}

const isHost = (b: unknown): b is SandboxHost => {
  const h = b as Partial<SandboxHost> | null;
  return typeof h === 'object' && h !== null && Number.isInteger(h.id) && (h.id as number) >= 0 && typeof h.hostDir === 'string' && h.hostDir.startsWith('/');
};

const clusterFileOf = (env: NodeJS.ProcessEnv): string | null => (env.KR_SANDBOX_HOME === '' ? null : join(sandboxHomeOf(env.KR_SANDBOX_HOME), CLUSTER_FILE));

function hostsOf(text: string): SandboxHost[] | null {
  const brokers = (JSON.parse(text) as { brokers?: unknown }).brokers;
  return Array.isArray(brokers) && brokers.length > 0 && brokers.every(isHost) ? brokers.map((b) => ({ id: b.id, hostDir: b.hostDir })) : null;
}

/** The brokers' host directories; null when there is no readable sandbox (the validated read then says why). */
export function readSandboxHostsSync(env: NodeJS.ProcessEnv): SandboxHost[] | null {
  const file = clusterFileOf(env);
  try {
    return file ? hostsOf(readFileSync(file, 'utf8')) : null;
  } catch {
    return null;
  }
}

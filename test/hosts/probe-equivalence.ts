// The probe as records against the probe as it was (test/hosts/legacy/probe-v1.sh,
// the last version that wrote JSON, kept only as this oracle): on the same host,
// at the same moment, both must give the same document and the same findings.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { LocalExecutor } from '../../lib/hosts/local-executor.ts';
import { probeHosts, probeParams } from '../../lib/hosts/probe-runner.ts';
import { reportFromDocument } from '../../lib/hosts/probe-output.ts';
import { assembleDocument } from '../../lib/hosts/probe-records.ts';
import { scriptArgs, HOST_SCRIPTS } from '../../lib/hosts/scripts.ts';
import { detect } from '../../lib/diagnose/detect.ts';
import type { ClusterSnapshot } from '../../lib/kafka/types.ts';
import type { HostProbeOutcome, HostTarget } from '../../lib/hosts/types.ts';
import type { Finding } from '../../lib/diagnose/types.ts';

const exec = promisify(execFile);
const LEGACY = new URL('./legacy/probe-v1.sh', import.meta.url).pathname;
const executor = new LocalExecutor();

export interface Compared {
  legacy: Record<string, unknown>;
  records: Record<string, unknown>;
  legacyFindings: Finding[];
  recordFindings: Finding[];
  /** The legacy probe shortened its output (fewer and shorter lines): only the findings are compared then. */
  legacyShortened: boolean;
  stdoutChars: number;
}

/**
 * A log line without its number. Both number a line by where it is in its
 * log's stream, and only to order the lines: the JSON probe by line, the
 * records probe by byte offset. The order is compared, as the arrays are.
 */
const unnumbered = (line: unknown) => (typeof line === 'string' ? line.replace(/^\d+([:-])/, '$1') : line);

/** What differs between two runs by nature: the clock, and the free space of a disk others write to; and how lines are numbered. */
function timeless(doc: Record<string, unknown>): Record<string, unknown> {
  const { collectedAt: _c, probeDurationMs: _d, probeVersion: _v, logDirs, logs, consumerOffsets, limits, ...rest } = doc;
  // A live broker's open files and memory maps move between the two probes' runs (a client connects, a segment rolls): the limits must match, the counts be there.
  const { openFds, mapCount, ...fixedLimits } = (limits ?? {}) as Record<string, unknown>;
  const counted = { ...fixedLimits, openFds: typeof openFds, mapCount: typeof mapCount };
  const lines = Object.fromEntries(Object.entries(logs as Record<string, unknown>).map(([k, v]) => [k, Array.isArray(v) && k !== 'files' ? v.map(unnumbered) : v]));
  const offsets = (consumerOffsets as Record<string, unknown>[]).map((o) => ({ ...o, lastLoadStart: unnumbered(o.lastLoadStart), lastLoadFinish: unnumbered(o.lastLoadFinish) }));
  return { ...rest, limits: counted, logs: lines, consumerOffsets: offsets, logDirs: (logDirs as Record<string, unknown>[]).map(({ diskAvailableBytes: _a, ...d }) => d) };
}

/**
 * Findings as a user sees them; where a side shortened its lines (counts in
 * titles and evidence then differ by design), what they are about: kind,
 * severity, fingerprint and what is affected.
 */
const seen = (fs: Finding[], whole: boolean) =>
  whole ? fs : fs.map((f) => ({ kind: f.kind, severity: f.severity, fingerprint: f.fingerprint, affected: f.affected }));

export async function compareProbes(target: HostTarget, snapshot: ClusterSnapshot): Promise<Compared> {
  const params = probeParams(executor, target);
  // The JSON probe predates --pid-file (a sandbox host's broker.pid): it finds the process by its command line.
  const { pidFile: _pidFile, ...legacyParams } = params;
  const [legacyRun, [outcome]] = await Promise.all([
    exec('bash', [LEGACY, ...scriptArgs(HOST_SCRIPTS.probe, legacyParams)], { cwd: target.address, maxBuffer: 1 << 24, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' } }),
    probeHosts(executor, [target], { timeoutMs: 20_000 }),
  ]);
  if (!outcome?.ok) throw new Error(`probe failed: ${JSON.stringify(outcome)}`);
  const legacy: Record<string, unknown> = { ...(JSON.parse(legacyRun.stdout) as Record<string, unknown>), probeVersion: 2 };
  const records = assembleDocument(outcome.execution!.stdout) as Record<string, unknown>;
  const legacyShortened = (legacy.warnings as string[]).some((w) => w.startsWith('output shortened'));
  const asOutcome = (report: ReturnType<typeof reportFromDocument>): HostProbeOutcome => ({ ...outcome, report });
  return {
    legacy,
    records,
    legacyFindings: detect(snapshot, [asOutcome(reportFromDocument(legacy))]),
    recordFindings: detect(snapshot, [outcome]),
    legacyShortened,
    stdoutChars: outcome.execution!.stdout.length,
  };
}

/** The same findings; and where neither side had to shorten, the same document. */
export function expectEquivalent(c: Compared): void {
  const recordsShortened = (c.records.warnings as string[]).some((w) => w.startsWith('output shortened'));
  const whole = !c.legacyShortened && !recordsShortened;
  expect(seen(c.recordFindings, whole)).toEqual(seen(c.legacyFindings, whole));
  if (whole) expect(timeless(c.records)).toEqual(timeless(c.legacy));
  expect(c.stdoutChars).toBeLessThan(24_000);
}

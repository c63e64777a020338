// What the scheduled audit posted last, per cluster, by fingerprint: the next
// run posts only what is new or changed (severity or title), and what went away.
import type { Finding, Severity } from '../diagnose/types.ts';
import { mutate, type StateStore } from '../state/state-store.ts';
import type { StorageSample } from '../diagnose/storage-samples.ts';
import { keepRecent } from '../diagnose/storage-samples.ts';
import type { StorageHistoryStore } from './run.ts';

export interface ReportedFinding {
  kind: string;
  severity: Severity;
  title: string;
}

export interface LastReport {
  at: string;
  findings: Record<string, ReportedFinding>;
}

export interface ReportDiff {
  added: Finding[];
  changed: Finding[];
  resolved: ReportedFinding[];
}

export function recordOf(at: string, findings: readonly Finding[]): LastReport {
  return { at, findings: Object.fromEntries(findings.map((f) => [f.fingerprint, { kind: f.kind, severity: f.severity, title: f.title }])) };
}

export function diffReport(previous: LastReport | null, findings: readonly Finding[]): ReportDiff {
  const before = previous?.findings ?? {};
  const added: Finding[] = [];
  const changed: Finding[] = [];
  for (const f of findings) {
    const was = before[f.fingerprint];
    if (!was) added.push(f);
    else if (was.severity !== f.severity || was.title !== f.title) changed.push(f);
  }
  const now = new Set(findings.map((f) => f.fingerprint));
  const resolved = Object.entries(before).filter(([fp]) => !now.has(fp)).map(([, r]) => r);
  return { added, changed, resolved };
}

export const isEmptyDiff = (d: ReportDiff) => d.added.length === 0 && d.changed.length === 0 && d.resolved.length === 0;

const KEEP_SECONDS = 60 * 24 * 3600;

/** Longer than SQS keeps retrying a job. */
const STAGED_SECONDS = 24 * 3600;

/**
 * The report a job is about to post, staged before the post and saved as the
 * last one after it (promote). A job retried after its worker died between the
 * post and the save finds the post done and saves what that post described,
 * not a fresh audit's findings nobody was shown.
 */
interface StagedReport {
  jobId: string;
  report: LastReport | null;
}

export function lastReportStore(store: StateStore, cluster: string) {
  const key = `audit-last:${cluster}`;
  const stagedKey = `audit-staged:${cluster}`;
  const save = async (report: LastReport) => void (await mutate<LastReport>(store, key, KEEP_SECONDS, () => report));
  return {
    async load(): Promise<LastReport | null> {
      return (await store.get<LastReport>(key))?.value ?? null;
    },
    save,
    /** What `jobId` will post (null: nothing to save, a failed audit); replaces what it staged before. */
    async stage(jobId: string, report: LastReport | null): Promise<void> {
      await mutate<StagedReport>(store, stagedKey, STAGED_SECONDS, () => ({ jobId, report }));
    },
    /** Saves what `jobId` staged, if it still is the staged one (another job's is left alone). */
    async promote(jobId: string): Promise<void> {
      const staged = (await store.get<StagedReport>(stagedKey))?.value;
      if (staged?.jobId === jobId && staged.report) await save(staged.report);
    },
  };
}

export function storageHistoryStore(store: StateStore, cluster: string, now: () => number = Date.now): StorageHistoryStore {
  const key = `audit-storage:${cluster}`;
  return {
    async load() {
      return (await store.get<StorageSample[]>(key))?.value ?? [];
    },
    async save(samples) {
      await mutate<StorageSample[]>(store, key, KEEP_SECONDS, () => keepRecent(samples, now()));
    },
  };
}

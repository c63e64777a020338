// The probe's stdout is flat records, one a line: <category> TAB <key> TAB
// <value>, with \\ \t \r \n escapes in the value (probe.sh writes them, no
// JSON in bash). This file assembles them into the probe document that
// probe-output.ts validates with zod and turns into a ProbeReport.
//
// Fitting SSM's 24,000 characters: the script prints every record with a
// priority and leaves the least important out first, counting them in its
// last record (`end`). A stream cut anyway (an older agent, a huge host) is
// read up to its last whole line and says so in a warning: a cut costs the
// records after it, never the report.

import { PROBE_LOG_CATEGORIES, type RawProbeOutput } from './probe-schema.ts';
import { ResponderError } from '../runtime/errors.ts';


export interface ProbeRecord {
  category: string;
  key: string;
  value: string;
}

const ESCAPES: Record<string, string> = { '\\': '\\', t: '\t', n: '\n', r: '\r' };

export function unescapeValue(v: string): string {
  return v.includes('\\') ? v.replace(/\\(.)/g, (all, c: string) => ESCAPES[c] ?? all) : v;
}

/** The records of a stdout; a last line without its newline (a cut stream) is dropped. */
export function readRecords(stdout: string): { records: ProbeRecord[]; cut: boolean } {
  const lines = stdout.split('\n');
  const cut = lines.at(-1) !== '';
  lines.pop();
  const records: ProbeRecord[] = [];
  for (const line of lines) {
    const a = line.indexOf('\t');
    const b = a < 0 ? -1 : line.indexOf('\t', a + 1);
    if (b < 0) continue;
    records.push({ category: line.slice(0, a), key: line.slice(a + 1, b), value: unescapeValue(line.slice(b + 1)) });
  }
  return { records, cut };
}

/** What the document builder needs to tell apart: nothing printed, or no `probe` record (not the probe). */
export type AssembleProblem = 'empty' | 'not-records';

export class AssembleError extends ResponderError {
  readonly failure = 'fatal';
  constructor(
    readonly problem: AssembleProblem,
    message: string,
  ) {
    super(message);
    this.name = 'AssembleError';
  }
}

const text = (v: string | undefined): string | null => (v === undefined || v === '' ? null : v);
/** An integer as printed, or the raw text (zod then names the field), or null when empty. */
const int = (v: string | undefined): number | string | null => (v === undefined || v === '' ? null : /^-?\d+$/.test(v) ? Number(v) : v);
const bool = (v: string | undefined): boolean | string | undefined => (v === 'true' ? true : v === 'false' ? false : v);
/** Lines in the order of the log: grep's line number first ("<n>:" or "<n>-"). */
const byLineNumber = (a: string, b: string) => (parseInt(a, 10) || 0) - (parseInt(b, 10) || 0);

type Loose<T> = { [K in keyof T]: unknown };

/**
 * The probe document from its records, not yet validated (probe-output.ts
 * does that with zod: a field of the wrong type is named there).
 */
/** The records sorted by what they describe, before the document is built. */
interface Gathered {
  one: Map<string, string>;
  dirs: Map<number, Map<string, string>>;
  noSegments: Map<number, string[]>;
  offsets: Map<number, string>;
  loadStart: Map<number, string>;
  loadFinish: Map<number, string>;
  logLines: Map<string, string[]>;
  files: string[];
  journal: [number, string][];
  warnings: string[];
  /** The `end` record's count of records left out; null when the stream was cut before it. */
  leftOut: number | null;
}

function gather(records: readonly ProbeRecord[]): Gathered {
  const one = new Map<string, string>();
  const dirs = new Map<number, Map<string, string>>();
  const noSegments = new Map<number, string[]>();
  const offsets = new Map<number, string>();
  const loadStart = new Map<number, string>();
  const loadFinish = new Map<number, string>();
  const logLines = new Map<string, string[]>(PROBE_LOG_CATEGORIES.map((c) => [c, []]));
  const files: string[] = [];
  const journal: [number, string][] = [];
  const warnings: string[] = [];
  let leftOut: number | null = null;

  for (const { category, key, value } of records) {
    switch (category) {
      case 'dir': {
        const dot = key.indexOf('.');
        const i = Number(key.slice(0, dot));
        if (dot < 0 || !Number.isInteger(i)) break;
        if (!dirs.has(i)) dirs.set(i, new Map());
        dirs.get(i)!.set(key.slice(dot + 1), value);
        break;
      }
      case 'noSegments':
        (noSegments.get(Number(key)) ?? noSegments.set(Number(key), []).get(Number(key))!).push(value);
        break;
      case 'offsets':
        offsets.set(Number(key), value);
        break;
      case 'loadStart':
        loadStart.set(Number(key), value);
        break;
      case 'loadFinish':
        loadFinish.set(Number(key), value);
        break;
      case 'log':
        logLines.get(key)?.push(value);
        break;
      case 'logs':
        if (key === 'file') files.push(value);
        else one.set(`logs.${key}`, value);
        break;
      case 'journal':
        journal.push([Number(key), value]);
        break;
      case 'warning':
        warnings.push(value);
        break;
      case 'end':
        leftOut = Number(value) || 0;
        break;
      default:
        one.set(`${category}.${key}`, value);
    }
  }
  return { one, dirs, noSegments, offsets, loadStart, loadFinish, logLines, files, journal, warnings, leftOut };
}

function logDirsOf({ dirs, noSegments }: Gathered) {
  return [...dirs.keys()].sort((a, b) => a - b).map((i) => {
    const d = dirs.get(i)!;
    const exists = bool(d.get('exists'));
    if (exists !== true) return { path: d.get('path'), exists };
    return {
      path: d.get('path'),
      exists,
      realPath: d.get('realPath'),
      cleanShutdownMarker: bool(d.get('cleanShutdownMarker')),
      fsType: text(d.get('fsType')),
      mountPoint: text(d.get('mountPoint')),
      diskUsedPercent: int(d.get('diskUsedPercent')),
      diskAvailableBytes: int(d.get('diskAvailableBytes')),
      inodeUsedPercent: int(d.get('inodeUsedPercent')),
      partitionDirCount: int(d.get('partitionDirCount')) ?? undefined,
      partitionDirsWithoutSegments: noSegments.get(i) ?? [],
      partitionDirsWithoutSegmentsCount: int(d.get('partitionDirsWithoutSegmentsCount')) ?? undefined,
    };
  });
}

function consumerOffsetsOf({ dirs, offsets, loadStart, loadFinish }: Gathered) {
  return [...offsets].map(([partition, v]) => {
    const [dir, segments, bytes] = v.split(' ');
    return {
      partition,
      logDir: dirs.get(Number(dir))?.get('path') ?? dir,
      segments: int(segments),
      bytes: bytes === '-' ? null : int(bytes),
      lastLoadStart: loadStart.get(partition) ?? null,
      lastLoadFinish: loadFinish.get(partition) ?? null,
    };
  });
}

function systemdOf(one: Map<string, string>, journal: [number, string][]) {
  const unit = one.get('systemd.unit');
  if (unit === undefined) return null;
  return {
    unit,
    activeState: text(one.get('systemd.ActiveState')),
    timeoutStopUSec: text(one.get('systemd.TimeoutStopUSec')),
    nRestarts: int(one.get('systemd.NRestarts')),
    execMainStatus: int(one.get('systemd.ExecMainStatus')),
    execMainCode: text(one.get('systemd.ExecMainCode')),
    journalTail: journal.sort((a, b) => a[0] - b[0]).map(([, l]) => l),
  };
}

export function assembleDocument(stdout: string, opts: { truncated?: boolean } = {}): Loose<RawProbeOutput> {
  if (stdout.trim() === '') throw new AssembleError('empty', 'the probe printed nothing');
  const g = gather(readRecords(stdout).records);
  const { one, files, logLines, journal, warnings, leftOut } = g;
  if (!one.has('probe.version')) {
    if (opts.truncated || stdout.length >= 24_000) throw new AssembleError('not-records', `probe output was cut at ${stdout.length} characters before its first record`);
    throw new AssembleError('not-records', `probe output is not the probe's records; it starts with ${JSON.stringify(stdout.trim().slice(0, 80))}`);
  }
  if (leftOut === null) warnings.push(`probe output was cut at ${stdout.length} characters: the records after that are missing`);
  else if (leftOut > 0) warnings.push(`output shortened to fit 24,000 characters (${leftOut} least important records left out)`);

  const logDirs = logDirsOf(g);
  const consumerOffsets = consumerOffsetsOf(g);
  const pid = int(one.get('process.pid'));
  const maxFds = one.get('limits.maxFds');
  return {
    probeVersion: int(one.get('probe.version')),
    hostname: one.get('host.hostname') ?? '',
    brokerId: int(one.get('host.brokerId')),
    collectedAt: one.get('host.collectedAt'),
    probeDurationMs: int(one.get('host.durationMs')),
    kafkaVersion: text(one.get('host.kafkaVersion')),
    process: {
      running: pid !== null,
      pid,
      startedAt: text(one.get('process.startedAt')),
      configPath: text(one.get('process.configPath')),
      logsDir: text(one.get('process.logsDir')),
    },
    logDirs,
    consumerOffsets,
    logs: {
      files,
      bytesRead: int(one.get('logs.bytesRead')),
      ...Object.fromEntries([...logLines].map(([c, ls]) => [c, ls.sort(byLineNumber)])),
    },
    limits: {
      openFds: int(one.get('limits.openFds')),
      maxFds: maxFds === 'unlimited' ? null : int(maxFds),
      mapCount: int(one.get('limits.mapCount')),
      maxMapCount: int(one.get('limits.maxMapCount')),
    },
    systemd: systemdOf(one, journal),
    warnings,
  };
}

// What a broker log line means, for every Kafka wording from 0.11 to 4.x.
//
// Each pattern was read from Kafka's own source at the release tags named in
// `versions` (the Scala/Java log statement or exception message), and the 4.x
// ones from the 4.1.1 release jars. Wording changed often (a stray `}` before
// 4.0, parentheses dropped in 3.5, "for epoch" added in 2.8, a new group
// coordinator in 3.6), so every variant is listed separately and each has a
// unit test with a realistic line (test/hosts/log-patterns.test.ts).
//
// Patterns are not anchored at the start: a line may carry the log4j prefix
// `[2026-11-29 07:00:00,123] WARN [LogLoader partition=t-0, dir=/d] ...`, or be
// the exception line printed under an ERROR (`org.apache...Exception: msg`).

import { requiredLiteral } from './regex-literal.ts';

export type LogLineKind =
  /** LogManager starts loading the log dirs: the broker (re)started. */
  | 'logs-loading-started'
  /** LogManager finished loading every log. */
  | 'logs-loading-finished'
  /** A log dir had no clean-shutdown marker, so all its logs are recovered. */
  | 'logdir-unclean'
  | 'logdir-clean'
  /** One segment past the recovery point is being recovered (unclean shutdown). */
  | 'segment-recovery'
  /** Recovery found garbage and truncated or replaced a segment. */
  | 'recovery-truncation'
  /** Segment files vanished under the broker (log end below log start). */
  | 'segments-missing'
  /** One log of a log dir finished loading: "k/n completed". */
  | 'log-load-progress'
  | 'corrupt-index'
  | 'missing-index'
  | 'index-append-fatal'
  | 'cleaner-uncleanable'
  | 'cleaner-thread-died'
  | 'cleaner-io-failure'
  | 'unsupported-request-version'
  | 'offsets-load-started'
  | 'offsets-load-finished'
  | 'offsets-load-failed'
  /** The broker began its controlled shutdown (SIGTERM or a stop request). */
  | 'shutdown-started'
  /** The broker's shutdown finished: it exits next. */
  | 'shutdown-completed';

export interface LogPattern {
  kind: LogLineKind;
  /** Kafka versions that print exactly this wording (from their source). */
  versions: string;
  regex: RegExp;
}

// Named groups used below: tp (topic-partition), dir (log dir), path (file),
// n (count), k/total (progress), partition (__consumer_offsets partition),
// epoch (coordinator epoch), offset/last (index append), apiKey, apiVersion.

const TP = String.raw`(?<tp>[^\s,\]]+-\d+)`;
const PATH = String.raw`(?<path>\S+)`;

export const LOG_PATTERNS: readonly LogPattern[] = [
  // ---------------------------------------------------------------- log loading
  { kind: 'logs-loading-started', versions: '0.11–2.5', regex: /\bINFO Loading logs\.(?:\s|$)/ },
  { kind: 'logs-loading-started', versions: '2.6–4.x', regex: /\bLoading logs from log dirs (?<dirs>.+?)(?: \(kafka\.log\.LogManager\))?$/ },
  { kind: 'logs-loading-finished', versions: '0.11–2.5', regex: /\bLogs loading complete in (?<ms>\d+) ms\./ },
  { kind: 'logs-loading-finished', versions: '2.6–3.4', regex: /\bLoaded (?<n>\d+) logs in (?<ms>\d+)ms\./ },
  {
    kind: 'logs-loading-finished',
    versions: '3.5–4.x',
    regex: /\bLoaded (?<n>\d+) logs in (?<ms>\d+)ms(?: \(unclean log dirs = (?<unclean>[^)]*\)?)\))?(?: \(|$)/,
  },

  // ---------------------------------------------------------- clean shutdown marker
  {
    kind: 'logdir-unclean',
    versions: '2.6–3.4',
    regex: /\bAttempting recovery for all logs in (?<dir>.+?) since no clean shutdown file was found/,
  },
  {
    kind: 'logdir-unclean',
    versions: '3.5–4.x',
    regex: /\bRecovering (?<n>\d+) logs from (?<dir>.+?) since no clean shutdown file was found/,
  },
  { kind: 'logdir-clean', versions: '2.6–3.4', regex: /\bSkipping recovery for all logs in (?<dir>.+?) since clean shutdown file was found/ },
  { kind: 'logdir-clean', versions: '3.5–4.x', regex: /\bSkipping recovery of (?<n>\d+) logs from (?<dir>.+?) since clean shutdown file was found/ },

  // ------------------------------------------------------------- segment recovery
  {
    kind: 'segment-recovery',
    versions: '0.11',
    regex: /\bRecovering unflushed segment (?<base>\d+) in log (?<tp>\S+-\d+)\./,
  },
  {
    kind: 'segment-recovery',
    versions: '3.3–4.x',
    regex: new RegExp(String.raw`\bRecovering unflushed segment (?<base>\d+)\. (?<k>\d+)/(?<total>\d+) recovered for ${TP}\.`),
  },
  {
    // The Java LogLoader (4.x) prints a single number where 3.x had k/n: "0 recovered for t-0.".
    kind: 'segment-recovery',
    versions: '4.x',
    regex: new RegExp(String.raw`\bRecovering unflushed segment (?<base>\d+)\. (?<k>\d+) recovered for ${TP}\.`),
  },
  {
    // The partition is only in the logger prefix: [Log partition=..] (1.0–2.8), [LogLoader partition=..] (3.0–3.2).
    kind: 'segment-recovery',
    versions: '1.0–3.2',
    regex: new RegExp(String.raw`\[(?:Log|LogLoader) partition=${TP}, dir=[^\]]*\] Recovering unflushed segment (?<base>\d+)(?:\s|$)`),
  },
  {
    kind: 'recovery-truncation',
    versions: '0.11',
    regex: /\bFound invalid offset during recovery for log (?<tp>\S+-\d+)\. Deleting the corrupt segment and creating an empty one with starting offset (?<offset>\d+)/,
  },
  {
    kind: 'recovery-truncation',
    versions: '1.0–4.x',
    regex: /\bFound invalid offset during recovery\. Deleting the corrupt segment and creating an empty one with starting offset (?<offset>\d+)/,
  },
  {
    kind: 'recovery-truncation',
    versions: '0.11',
    regex: /\bCorruption found in segment (?<base>\d+) of log (?<tp>\S+-\d+), truncating to offset (?<offset>\d+)\./,
  },
  {
    kind: 'recovery-truncation',
    versions: '1.0–4.x',
    regex: /\bCorruption found in segment (?<base>\d+), truncating to offset (?<offset>\d+)/,
  },
  {
    kind: 'segments-missing',
    versions: '2.4–4.x',
    regex: /\bDeleting all segments because logEndOffset \((?<end>\d+)\) is smaller than logStartOffset \(?(?<start>\d+)\)?\./,
  },
  {
    kind: 'log-load-progress',
    versions: '2.6–3.2',
    regex: /\bCompleted load of (?<log>.+) with (?<segments>\d+) segments.* in (?<ms>\d+)ms \((?<k>\d+)\/(?<total>\d+) loaded in (?<dir>.+?)\)/,
  },
  {
    kind: 'log-load-progress',
    versions: '3.3–4.x',
    regex: /\bCompleted load of (?<log>.+) with (?<segments>\d+) segments.* in (?<ms>\d+)ms \((?<k>\d+)\/(?<total>\d+) completed in (?<dir>.+?)\)/,
  },
  {
    kind: 'log-load-progress',
    versions: '2.6–4.x (line cut)',
    regex: /\bCompleted load of (?<log>.+)/,
  },

  // ---------------------------------------------------------------- index files
  {
    kind: 'corrupt-index',
    versions: '0.11–1.0',
    regex: /\bFound a corrupted index file due to (?<reason>.+?)\}\. deleting (?<path>\S+?),/,
  },
  {
    // The stray `}` after the reason is in Kafka's source until 3.9; 4.x dropped it.
    kind: 'corrupt-index',
    versions: '1.1–3.9',
    regex: new RegExp(String.raw`\bFound a corrupted index file corresponding to log file ${PATH} due to (?<reason>.+?)\}, recovering segment and rebuilding index files`),
  },
  {
    kind: 'corrupt-index',
    versions: '4.x',
    regex: new RegExp(String.raw`\bFound a corrupted index file corresponding to log file ${PATH} due to (?<reason>.+?[^}]), recovering segment and rebuilding index files`),
  },
  {
    // The probe cuts long lines (500 bytes, less when its output is crowded):
    // a cut line still says what it is, if not which wording.
    kind: 'corrupt-index',
    versions: '0.11–4.x (line cut)',
    regex: /\bFound a corrupted index file\b/,
  },
  {
    // The exception alone (printed under another message or with a stack).
    kind: 'corrupt-index',
    versions: '0.11–3.4',
    regex: /^(?!.*Found a corrupted index file).*\bCorrupt index found, index file \((?<path>\S+)\) has non-zero size but the last offset is (?<last>-?\d+) which is (?:no larger than|no greater than|less than) the base offset (?<base>\d+)/,
  },
  {
    kind: 'corrupt-index',
    versions: '3.5–4.x',
    regex: /^(?!.*Found a corrupted index file).*\bCorrupt index found, index file (?<path>[^\s(]\S*) has non-zero size but the last offset is (?<last>-?\d+) which is less than the base offset (?<base>\d+)/,
  },
  {
    kind: 'corrupt-index',
    versions: '0.11–4.x',
    regex: /^(?!.*Found a corrupted index file).*\bIndex file (?<path>\S+) is corrupt, found (?<bytes>-?\d+) bytes which is/,
  },
  {
    kind: 'missing-index',
    versions: '0.11–1.0',
    regex: /\bCould not find offset index file corresponding to log file (?<path>\S+), rebuilding index\.\.\./,
  },
  {
    kind: 'missing-index',
    versions: '1.1–4.x',
    regex: /\bCould not find offset index file corresponding to log file (?<path>\S+), recovering segment and rebuilding index files/,
  },

  // ------------------------------------------------------ the fatal index append
  {
    // kafka.common.InvalidOffsetException (0.11–1.1), org.apache.kafka.common.errors.InvalidOffsetException (2.0+).
    kind: 'index-append-fatal',
    versions: '0.11–3.4',
    regex: /\bAttempt to append an offset \((?<offset>-?\d+)\) to (?:position|slot) (?<position>\d+) no larger than the last offset appended \((?<last>-?\d+)\) to (?<path>\S+?)\.?$/,
  },
  {
    kind: 'index-append-fatal',
    versions: '3.5–4.x',
    regex: /\bAttempt to append an offset (?<offset>-?\d+) to (?:position|slot) (?<position>\d+) no larger than the last offset appended \((?<last>-?\d+)\) to (?<path>\S+)/,
  },

  // ------------------------------------------------------------------ log cleaner
  {
    kind: 'cleaner-uncleanable',
    versions: '2.1–4.x',
    regex: new RegExp(String.raw`\bUnexpected exception thrown when cleaning log (?<log>.*)\. Marking its partition \(${TP}\) as uncleanable`),
  },
  {
    // Before 2.1 any exception ends the cleaner thread (ShutdownableThread).
    kind: 'cleaner-thread-died',
    versions: '0.11–4.x',
    regex: /\[(?<thread>kafka-log-cleaner-thread-\d+)\]: Error due to/,
  },
  {
    kind: 'cleaner-io-failure',
    versions: '1.0–4.x',
    regex: new RegExp(String.raw`\bFailed to clean up log for ${TP} in dir (?<dir>.+?) due to IOException`),
  },

  // ---------------------------------------------------- unsupported request versions
  {
    kind: 'unsupported-request-version',
    versions: '0.10–0.11',
    regex: /\bError getting request for apiKey: (?<apiKey>-?\d+) and apiVersion: (?<apiVersion>-?\d+)/,
  },
  {
    kind: 'unsupported-request-version',
    versions: '1.0–4.x',
    regex: /\bError getting request for apiKey: (?<apiKey>\S+?), apiVersion: (?<apiVersion>-?\d+), connectionId: (?<connection>\S+?),/,
  },
  {
    kind: 'unsupported-request-version',
    versions: '0.10–4.x',
    regex: /\bError parsing request header\. Our best guess of the apiKey is: (?<apiKey>-?\d+)/,
  },
  {
    kind: 'unsupported-request-version',
    versions: '2.8–3.4',
    regex: /\bReceived request api key (?<apiKey>\S+) which is not enabled/,
  },
  {
    kind: 'unsupported-request-version',
    versions: '3.5–3.9',
    regex: /\bReceived request api key (?<apiKey>\S+) with version (?<apiVersion>-?\d+) which is not enabled/,
  },
  {
    kind: 'unsupported-request-version',
    versions: '4.x',
    regex: /\bReceived request for api with key (?<apiKey>-?\d+) \((?<apiName>[^)]*)\) and unsupported version (?<apiVersion>-?\d+)/,
  },
  {
    kind: 'unsupported-request-version',
    versions: '4.x',
    regex: /\bReceived request for disabled api with key (?<apiKey>-?\d+) \((?<apiName>[^)]*)\) and version (?<apiVersion>-?\d+)/,
  },

  // ------------------------------------------------------- __consumer_offsets loading
  {
    kind: 'offsets-load-started',
    versions: '0.11–2.7',
    regex: /\bScheduling loading of offsets and group metadata from __consumer_offsets-(?<partition>\d+)(?: \(|$)/,
  },
  {
    kind: 'offsets-load-started',
    versions: '2.8–3.9',
    regex: /\bScheduling loading of offsets and group metadata from __consumer_offsets-(?<partition>\d+) for epoch (?<epoch>-?\d+)/,
  },
  {
    // New group coordinator (CoordinatorRuntime), prefix "[GroupCoordinator id=N] "; default in 4.x.
    kind: 'offsets-load-started',
    versions: '3.6–4.x',
    regex: /\bScheduling loading of metadata from __consumer_offsets-(?<partition>\d+) with epoch (?<epoch>-?\d+)/,
  },
  {
    kind: 'offsets-load-finished',
    versions: '0.11–2.5',
    regex: /\bFinished loading offsets and group metadata from __consumer_offsets-(?<partition>\d+) in (?<ms>\d+) milliseconds\.(?: \(|$)/,
  },
  {
    kind: 'offsets-load-finished',
    versions: '2.6–2.7',
    regex: /\bFinished loading offsets and group metadata from __consumer_offsets-(?<partition>\d+) in (?<ms>\d+) milliseconds, of which (?<schedulerMs>\d+) milliseconds was spent in the scheduler\./,
  },
  {
    kind: 'offsets-load-finished',
    versions: '2.8–3.9',
    regex: /\bFinished loading offsets and group metadata from __consumer_offsets-(?<partition>\d+) in (?<ms>\d+) milliseconds for epoch (?<epoch>-?\d+), of which (?<schedulerMs>\d+) milliseconds was spent in the scheduler\./,
  },
  {
    kind: 'offsets-load-finished',
    versions: '3.6',
    regex: /\bFinished loading of metadata from __consumer_offsets-(?<partition>\d+) with epoch (?<epoch>-?\d+)\.(?: \(|$)/,
  },
  {
    kind: 'offsets-load-finished',
    versions: '3.7',
    regex: /\bFinished loading of metadata from __consumer_offsets-(?<partition>\d+) with epoch (?<epoch>-?\d+) and LoadSummary=/,
  },
  {
    kind: 'offsets-load-finished',
    versions: '3.8–4.x',
    regex: /\bFinished loading of metadata from __consumer_offsets-(?<partition>\d+) with epoch (?<epoch>-?\d+) in (?<ms>\d+)ms where (?<schedulerMs>\d+)ms was spent in the scheduler\. Loaded (?<records>\d+) records which total to (?<bytes>\d+) bytes\./,
  },
  {
    // Lines cut by the probe keep partition and epoch, which is all loading needs.
    kind: 'offsets-load-finished',
    versions: '3.6–4.x (line cut)',
    regex: /\bFinished loading of metadata from __consumer_offsets-(?<partition>\d+) with epoch (?<epoch>-?\d+)/,
  },
  {
    kind: 'offsets-load-finished',
    versions: '0.11–3.9 (line cut)',
    regex: /\bFinished loading offsets and group metadata from __consumer_offsets-(?<partition>\d+)(?: in \d+ milliseconds for epoch (?<epoch>-?\d+))?/,
  },
  {
    kind: 'offsets-load-failed',
    versions: '0.11–3.9',
    regex: /\bError loading offsets from __consumer_offsets-(?<partition>\d+)/,
  },
  {
    kind: 'offsets-load-failed',
    versions: '3.6–4.x',
    regex: /\bFailed to load metadata from __consumer_offsets-(?<partition>\d+) with epoch (?<epoch>-?\d+) due to (?<reason>.*)/,
  },
  {
    kind: 'offsets-load-failed',
    versions: '3.8–4.x',
    regex: /\bFailed to complete the loading of metadata for __consumer_offsets-(?<partition>\d+) in epoch (?<epoch>-?\d+) since the coordinator does not exist/,
  },

  // ---------------------------------------------------------------- broker shutdown
  // KafkaServer's logIdent was "[Kafka Server N], " up to 0.11, then "[KafkaServer id=N] " (ZooKeeper
  // mode, 1.0–3.9); KRaft brokers log as "[BrokerServer id=N] " (2.8–4.x).
  { kind: 'shutdown-started', versions: '0.11', regex: /\[Kafka Server (?<id>\d+)\], shutting down\b/ },
  { kind: 'shutdown-started', versions: '1.0–4.x', regex: /\[(?:KafkaServer|BrokerServer) id=(?<id>\d+)\] shutting down\b/ },
  { kind: 'shutdown-completed', versions: '0.11', regex: /\[Kafka Server (?<id>\d+)\], shut down completed\b/ },
  { kind: 'shutdown-completed', versions: '1.0–4.x', regex: /\[(?:KafkaServer|BrokerServer) id=(?<id>\d+)\] shut down completed\b/ },
];

export interface ClassifiedLine {
  kind: LogLineKind;
  versions: string;
  groups: Record<string, string>;
}

/** Text each pattern's every match holds: a line without it is not tried against the pattern. */
const NEEDLES = LOG_PATTERNS.map((p) => requiredLiteral(p.regex));

/** First pattern that matches the line (the text without the probe's line-number prefix). */
export function classifyLogLine(text: string): ClassifiedLine | null {
  for (let i = 0; i < LOG_PATTERNS.length; i++) {
    if (!text.includes(NEEDLES[i]!)) continue;
    const p = LOG_PATTERNS[i]!;
    const m = p.regex.exec(text);
    if (m) {
      const groups: Record<string, string> = {};
      for (const [k, v] of Object.entries(m.groups ?? {})) if (v !== undefined) groups[k] = v;
      return { kind: p.kind, versions: p.versions, groups };
    }
  }
  return null;
}

/** KRaft's metadata log is opened as if unclean on every start: its recovery never means a crash. */
export function isClusterMetadataLine(text: string): boolean {
  return /__cluster_metadata-\d+/.test(text);
}

/** The partition directory (topic-N) a log/index file path belongs to, if any. */
export function partitionOfPath(path: string): string | null {
  const m = /([^/]+-\d+)\/[^/]+$/.exec(path);
  return m?.[1] ?? null;
}

// Host access: the same read-only probe script runs on a real broker host
// through SSM Run Command and on a sandbox broker's host directory through the
// local executor. Both return raw stdout; lib/hosts parses it into ProbeReport.

/** Where a broker's host lives: an EC2 instance for SSM, a host directory for the sandbox. */
export interface HostTarget {
  brokerId: number;
  /** EC2 instance id (SSM) or sandbox host directory (local). */
  address: string;
}

export type ExecutionStatus =
  | 'Success'
  | 'Failed'
  | 'TimedOut'
  | 'Cancelled'
  | 'Undeliverable'
  | 'Delayed'
  | 'Unreachable';

/**
 * What can be said of the script's effect on the host, whatever its status:
 * - not-delivered: it certainly never started there (bad target, SendCommand refused,
 *   undeliverable, or cancelled before the agent picked it up);
 * - completed: it ran to its own end; status and exit code tell how;
 * - interrupted: it started and was stopped before its end (SSM's execution timeout,
 *   a cancel, a kill): part of its work may have happened;
 * - may-still-be-running: our wait ended with no final state (CancelCommand was sent
 *   and not yet confirmed): it may be running now, and may finish its work.
 * Only not-delivered allows saying "nothing was done".
 */
export type ExecutionOutcome = 'not-delivered' | 'completed' | 'interrupted' | 'may-still-be-running';

export interface ExecutionResult {
  target: HostTarget;
  status: ExecutionStatus;
  outcome: ExecutionOutcome;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Output was cut by the transport (SSM keeps the first 24,000 characters). */
  truncated: boolean;
  /** Transport's id for the run (SSM command id), for logs and audit. */
  commandId: string | null;
  durationMs: number;
  /** Human-readable reason when status is not Success. */
  detail?: string;
}

export interface ScriptRun {
  /** One of the fixed host scripts (lib/hosts/scripts.ts HOST_SCRIPTS): never text built at run time. */
  script: string;
  /** Its parameters by name, each checked against the script's own pattern before anything runs. */
  params: Record<string, string>;
  timeoutMs: number;
  /** Shown in SSM's Comment field (≤ 100 chars) and logs. */
  comment: string;
}

export interface Executor {
  readonly kind: 'ssm' | 'local';
  run(targets: HostTarget[], run: ScriptRun): Promise<ExecutionResult[]>;
}

/** An executor that can stop what it runs (the local one: its process groups). */
export interface StoppableExecutor extends Executor {
  /** Stops every run of this executor still under way. */
  stopAll(): void;
}

// ---------------------------------------------------------------- probe report

export interface LogDirReport {
  path: string;
  /** The path with symlinks resolved (what underVarLog is judged on); null when it does not exist. */
  realPath?: string | null;
  exists: boolean;
  cleanShutdownMarker: boolean;
  fsType: string | null;
  mountPoint: string | null;
  underVarLog: boolean;
  onTmpfs: boolean;
  diskUsedPercent: number | null;
  diskAvailableBytes: number | null;
  inodeUsedPercent: number | null;
  partitionDirCount: number;
  /** Partition directories holding no .log segment (capped list, full count below). */
  partitionDirsWithoutSegments: string[];
  partitionDirsWithoutSegmentsCount: number;
}

export interface ConsumerOffsetsPartitionReport {
  partition: number;
  logDir: string;
  segments: number;
  bytes: number;
  /** Latest "Scheduling loading ..." line for this partition, if any. */
  lastLoadStart: string | null;
  /** Latest "Finished loading ..." line for this partition, if any. */
  lastLoadFinish: string | null;
  /** A load started and has not finished (same partition and epoch). */
  loading: boolean;
}

/** Log lines classified by what they mean; each list holds the exact lines (capped). */
export interface LogSignals {
  /** Log dirs recovered because no clean-shutdown marker was found (never __cluster_metadata). */
  uncleanShutdownRecovery: string[];
  /** Recovery progress lines since the latest start. */
  recoveryProgress: string[];
  corruptIndex: string[];
  indexAppendFatal: string[];
  logCleanerFailure: string[];
  uncleanablePartitions: string[];
  unsupportedRequestVersion: string[];
  consumerOffsetsLoadErrors: string[];
  /** Segment files deleted under the broker ("logEndOffset ... is smaller than logStartOffset"). */
  segmentsMissing?: string[];
}

/** Log loading of the latest broker start, from LogManager's own lines. */
export interface LogLoadingReport {
  /** "Loading logs ..." line of the latest start in the part of the log read; null if not found. */
  startLine: string | null;
  /** "Loaded N logs in ..." / "Logs loading complete ..." after that start; null while loading. */
  finishLine: string | null;
  /** Latest "Completed load of ... (k/n completed in <dir>)" line after that start. */
  lastProgressLine: string | null;
  /** k and n of that line, when present. */
  logsLoaded: number | null;
  logsTotal: number | null;
}

export interface SystemdReport {
  unit: string;
  activeState: string | null;
  timeoutStopSec: number | null;
  restarts: number | null;
  lastExitStatus: number | null;
  lastExitCode: string | null;
  /** systemd's own text for TimeoutStopUSec, e.g. "1min 30s" or "infinity". */
  timeoutStopRaw?: string | null;
  /** Last journal lines of the unit, read when systemd restarted it or it is not active (why it died). */
  journalTail?: string[];
}

export interface ProbeReport {
  hostname: string;
  brokerId: number | null;
  collectedAt: string;
  probeDurationMs: number;
  kafkaVersion: string | null;
  process: {
    running: boolean;
    pid: number | null;
    startedAt: string | null;
    configPath: string | null;
    logsDir: string | null;
  };
  logDirs: LogDirReport[];
  /** Log recovery is still running on the current process (started, not completed). */
  recoveryInProgress: boolean;
  logs: LogSignals;
  consumerOffsets: ConsumerOffsetsPartitionReport[];
  limits: {
    openFds: number | null;
    maxFds: number | null;
    mapCount: number | null;
    maxMapCount: number | null;
  };
  systemd: SystemdReport | null;
  /** How long the newest complete controlled shutdown in server.log took, in seconds; null when none is there. */
  lastShutdownSeconds?: number | null;
  /** Things the probe tried and could not read (permissions, missing tools). */
  warnings: string[];
  logLoading?: LogLoadingReport;
  /** Log files the probe read (newest bytes only). */
  logFiles?: string[];
}

/** One host's probe outcome as detectors see it. */
export type HostProbeOutcome =
  | { brokerId: number; ok: true; report: ProbeReport; execution: ExecutionResult }
  | { brokerId: number; ok: false; reason: 'unreachable' | 'malformed' | 'failed'; message: string; execution: ExecutionResult | null };

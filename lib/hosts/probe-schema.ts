// The probe document's shape: what probe-records.ts assembles from the
// probe's records and probe-output.ts validates and reads. Apart from both, so
// that neither imports the other's module for it.
import * as z from 'zod';

/** Every log line category the probe prints (probe.sh's `category` lines; a test keeps them equal). */
export const PROBE_LOG_CATEGORIES = [
  'lifecycle',
  'unclean',
  'recovery',
  'loadProgress',
  'corruptIndex',
  'indexAppend',
  'cleaner',
  'unsupported',
  'offsetsLoadErrors',
  'shutdown',
  'cleanerLog',
] as const;
export type ProbeLogCategory = (typeof PROBE_LOG_CATEGORIES)[number];

const nullableInt = z.number().int().nullable();
const rawLines = z.array(z.string());

const rawLogDir = z.object({
  path: z.string(),
  exists: z.boolean(),
  realPath: z.string().optional(),
  cleanShutdownMarker: z.boolean().optional(),
  fsType: z.string().nullable().optional(),
  mountPoint: z.string().nullable().optional(),
  diskUsedPercent: nullableInt.optional(),
  diskAvailableBytes: z.number().nullable().optional(),
  inodeUsedPercent: nullableInt.optional(),
  partitionDirCount: z.number().int().optional(),
  partitionDirsWithoutSegments: z.array(z.string()).optional(),
  partitionDirsWithoutSegmentsCount: z.number().int().optional(),
});

const rawOffsets = z.object({
  partition: z.number().int().nonnegative(),
  logDir: z.string(),
  segments: z.number().int().nonnegative(),
  bytes: z.number().nonnegative().nullable(),
  lastLoadStart: z.string().nullable(),
  lastLoadFinish: z.string().nullable(),
});

/** The probe document assembled from its records (probeVersion 2). Unknown extra keys are ignored. */
export const rawProbeSchema = z.object({
  probeVersion: z.literal(2),
  hostname: z.string(),
  brokerId: nullableInt,
  collectedAt: z.string(),
  probeDurationMs: z.number().int(),
  kafkaVersion: z.string().nullable(),
  process: z.object({
    running: z.boolean(),
    pid: nullableInt,
    startedAt: z.string().nullable(),
    configPath: z.string().nullable(),
    logsDir: z.string().nullable(),
  }),
  logDirs: z.array(rawLogDir),
  consumerOffsets: z.array(rawOffsets),
  logs: z.object({
    files: z.array(z.string()),
    bytesRead: z.number().int(),
    ...(Object.fromEntries(PROBE_LOG_CATEGORIES.map((c) => [c, rawLines])) as Record<ProbeLogCategory, typeof rawLines>),
  }),
  limits: z.object({
    openFds: nullableInt,
    maxFds: nullableInt,
    mapCount: nullableInt,
    maxMapCount: nullableInt,
  }),
  systemd: z
    .object({
      unit: z.string(),
      activeState: z.string().nullable(),
      timeoutStopUSec: z.string().nullable(),
      nRestarts: nullableInt,
      execMainStatus: nullableInt,
      execMainCode: z.string().nullable(),
      journalTail: z.array(z.string()).optional(),
    })
    .nullable(),
  warnings: z.array(z.string()),
});
export type RawProbeOutput = z.infer<typeof rawProbeSchema>;

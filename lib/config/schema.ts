// One zod-validated configuration for every entry point (Lambda handlers, the
// local server, the worker). It comes from KR_CONFIG (JSON text) or
// KR_CONFIG_FILE (a JSON file), or in AWS from an SSM parameter
// (lib/config/secrets.ts loadDeployedConfig). Secrets never live here: they come
// from the environment (locally) or SecureString parameters in SSM Parameter
// Store (in AWS), see lib/config/secrets.ts.
import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { HOST_PATH_RE } from './host-path.ts';
import { pagerDutySchema } from './pagerduty.ts';
import { ResponderError, type FailureClass } from '../runtime/errors.ts';

const SLACK_CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;
const SLACK_USER_ID = /^[UW][A-Z0-9]{2,}$/;
const SLACK_USERGROUP_ID = /^S[A-Z0-9]{2,}$/;
const SLACK_TEAM_ID = /^T[A-Z0-9]{2,}$/;
const SLACK_ENTERPRISE_ID = /^E[A-Z0-9]{2,}$/;
const EC2_INSTANCE_ID = /^i-[0-9a-f]{8,17}$/;
export const CLUSTER_NAME = /^[a-zA-Z0-9][a-zA-Z0-9._-]{0,63}$/;

const hostPort = z.string().regex(/^[A-Za-z0-9.-]+:\d{1,5}$/, 'expected host:port');

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name');

// Secrets are never in the config: SCRAM credentials come from the named
// environment variables locally and from a SecureString parameter in AWS
// (lib/config/secrets.ts readScramCredentials), TLS material from files.
const authSchema = z.discriminatedUnion('mechanism', [
  z.object({ mechanism: z.literal('none') }),
  z.object({
    mechanism: z.enum(['scram-sha-256', 'scram-sha-512']),
    usernameEnv: envName.default('KAFKA_SASL_USERNAME'),
    passwordEnv: envName.default('KAFKA_SASL_PASSWORD'),
    /** SCRAM is only sent over TLS unless this is explicitly false (test clusters). */
    tls: z.boolean().default(true),
  }),
  z.object({
    mechanism: z.literal('tls'),
    caPath: z.string().min(1).optional(),
    certPath: z.string().min(1).optional(),
    keyPath: z.string().min(1).optional(),
  }),
  z.object({ mechanism: z.literal('msk-iam'), region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'expected an AWS region like eu-west-1') }),
]);

const brokerIdKey = z.string().regex(/^\d+$/, 'broker ids are non-negative integers');

/** A systemd unit name as the host script accepts it: no path, no option, no shell character. */
export const SYSTEMD_UNIT_NAME = /^[A-Za-z0-9][A-Za-z0-9@_.-]{0,62}$/;

/**
 * How the broker's service is stopped and started (broker restarts). Stops are
 * graceful only: the run waits up to stopBoundSeconds for the process to exit
 * (keep it longer than the unit's TimeoutStopSec) and never sends SIGKILL.
 */
const serviceSchema = z.object({
  unit: z.string().regex(SYSTEMD_UNIT_NAME, 'expected a systemd unit name like kafka or kafka.service').default('kafka'),
  stopBoundSeconds: z.number().int().min(5).max(7200).default(900),
  /** Registered, logs loaded and back in every ISR within this after the start, or the restart stops. */
  readyTimeoutSeconds: z.number().int().min(10).max(86_400).default(3600),
});
export type ServiceConfig = z.infer<typeof serviceSchema>;

const hostsSchema = z.discriminatedUnion('executor', [
  z.object({
    executor: z.literal('ssm'),
    /** broker id → EC2 instance id */
    instances: z.record(brokerIdKey, z.string().regex(EC2_INSTANCE_ID, 'expected an EC2 instance id like i-0123456789abcdef0')),
    service: serviceSchema.prefault({}),
  }),
  z.object({
    executor: z.literal('local'),
    /** broker id → host directory (the sandbox's <home>/broker-<id>) */
    hostDirs: z.record(brokerIdKey, z.string().min(1)),
    service: serviceSchema.prefault({}),
  }),
  /** Amazon MSK: no host access; host checks are reported as skipped. */
  z.object({ executor: z.literal('none') }),
]);

/** Label names and values as Prometheus accepts them in a matcher. */
const PROM_LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const httpUrl = z.string().regex(/^https?:\/\/[^\s]+$/, 'expected an http(s) URL like https://prometheus.example.com');

/**
 * Where a cluster's broker metrics can be read, for evidence and the graph in the
 * thread (lib/diagnose/metrics/). Secrets come from the named environment variables
 * (in AWS: lib/config/secrets.ts puts them there), never from this file.
 */
const metricsSchema = z
  .object({
    prometheus: z
      .object({
        /** The Prometheus server (or a compatible API: Thanos, Mimir, Amazon Managed Prometheus behind a proxy); /api/v1/query_range is appended. */
        url: httpUrl,
        auth: z
          .discriminatedUnion('type', [
            z.object({ type: z.literal('none') }),
            z.object({ type: z.literal('bearer'), tokenEnv: envName }),
            z.object({ type: z.literal('basic'), usernameEnv: envName, passwordEnv: envName }),
          ])
          .default({ type: 'none' }),
        /** Exact label values selecting this cluster's series, e.g. { "cluster": "prod-eu" }. */
        labels: z.record(z.string().regex(PROM_LABEL_NAME, 'expected a Prometheus label name'), z.string().max(200)).default({}),
        /** The label telling brokers apart: a broker id, or a host name like b-2.… or kafka-2:9404. */
        brokerLabel: z.string().regex(PROM_LABEL_NAME, 'expected a Prometheus label name').default('instance'),
        timeoutMs: z.number().int().min(200).max(30_000).default(3000),
      })
      .optional(),
    cloudwatch: z
      .object({
        /** The MSK cluster's name: the "Cluster Name" dimension of AWS/Kafka. */
        clusterName: z.string().min(1).max(64),
        region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'expected an AWS region like eu-west-1').optional(),
        timeoutMs: z.number().int().min(200).max(30_000).default(3000),
      })
      .optional(),
    /** Minutes read before the alert or the diagnosis. */
    windowMinutes: z.number().int().min(5).max(24 * 60).default(60),
  })
  .refine((m) => !(m.prometheus && m.cloudwatch), { message: 'name one metrics source per cluster: prometheus or cloudwatch' });
export type MetricsConfig = z.infer<typeof metricsSchema>;

export const clusterSchema = z.object({
  name: z.string().regex(CLUSTER_NAME, 'cluster names are letters, digits, ".", "_" or "-"'),
  bootstrap: z.array(hostPort).min(1),
  auth: authSchema.default({ mechanism: 'none' }),
  hosts: hostsSchema.default({ executor: 'none' }),
  /** Budget for one diagnosis (snapshot and probes together). */
  diagnosisTimeoutMs: z.number().int().min(1000).max(840_000).default(60_000),
  /** Without lag history, consumer lag is judged over two samples this far apart (0: one sample, no lag verdict). */
  lagWindowMs: z.number().int().min(0).max(60_000).default(3000),
  /** Names this cluster goes by in alerts, e.g. the MSK "Cluster Name" dimension or a Prometheus label. */
  aliases: z.array(z.string().min(1)).default([]),
  /** How hard the bot may lean on this cluster while it is in trouble. */
  load: z
    .object({
      /**
       * Diagnoses of the same cluster and scope requested while one runs, or within
       * this many seconds after it finished, share its result (one diagnosis per window).
       */
      shareDiagnosisSeconds: z.number().int().min(0).max(600).default(30),
      /** Kafka requests in flight to one broker at a time, from this process. */
      maxRequestsPerBroker: z.number().int().min(1).max(64).default(4),
      /** Host probes running at once for this cluster, from this process. */
      maxConcurrentProbes: z.number().int().min(1).max(50).default(10),
      /**
       * Snapshots (diagnoses, restart checks, audits) of this cluster in flight at once,
       * across every worker (a lease in the state table); more wait their turn.
       */
      maxSnapshotsInFlight: z.number().int().min(1).max(10).default(2),
    })
    .prefault({}),
  /** Optional metrics source (Prometheus with the JMX exporter, or MSK's CloudWatch metrics): evidence and a graph in the thread. */
  metrics: metricsSchema.optional(),
  /**
   * Approved operations run over the Kafka protocol (no host access needed);
   * host tools only add measurements where the cluster has host access.
   */
  operations: z
    .object({
      /**
       * Kafka's bin directory on the broker hosts, e.g. /opt/kafka/bin: with it, a leader
       * override measures each replica's log end offset on its host (kafka-dump-log.sh).
       */
      kafkaBin: z.string().regex(HOST_PATH_RE, 'expected a plain absolute path like /opt/kafka/bin').optional(),
      /** Replication throttle for reassignments (drain, raise-rf), bytes/s. */
      throttleBytesPerSec: z.number().int().min(1024).max(10 * 1024 ** 3).default(50 * 1024 * 1024),
    })
    .optional(),
});

/**
 * An alert source's name (ALERT_SOURCES, lib/alerts/sources/index.ts): any
 * name-shaped string here, since the config cannot import the table; the
 * composition root refuses a name the table does not have (configuredSourceNames).
 */
export const ALERT_SOURCE_NAME = /^[a-z][a-z0-9-]{0,39}$/;
const alertSourceName = z.string().regex(ALERT_SOURCE_NAME, 'an alert source name, like alertmanager or grafana');

/** Which diagnosis an alert needs. Matched in order; the first match wins. */
export const alertRouteSchema = z.object({
  match: z
    .object({
      /** Alertmanager alertname or CloudWatch MetricName. */
      alertname: z.string().min(1).optional(),
      source: alertSourceName.optional(),
      /** Exact label / dimension values that must all be present. */
      labels: z.record(z.string(), z.string()).optional(),
    })
    .default({}),
  /** What the worker should look at. */
  diagnose: z.array(z.enum(['cluster', 'brokers', 'topics'])).min(1),
  /** Override the incident channel for this route. */
  channel: z.string().regex(SLACK_CHANNEL_ID).optional(),
  /** A short why, shown in the triage summary. */
  note: z.string().max(500).optional(),
});

/** At most `requests` within any `windowSeconds`. */
const rateWindow = (requests: number, windowSeconds: number) =>
  z
    .object({
      requests: z.number().int().min(1).max(10_000).default(requests),
      windowSeconds: z.number().int().min(1).max(86_400).default(windowSeconds),
    })
    .prefault({});

export const configSchema = z
  .object({
    clusters: z.array(clusterSchema).min(1, 'configure at least one cluster'),
    defaultCluster: z.string().optional(),
    slack: z
      .object({
        allowedChannels: z.array(z.string().regex(SLACK_CHANNEL_ID, 'channel ids look like C0123ABCD')).default([]),
        allowedUsers: z.array(z.string().regex(SLACK_USER_ID, 'user ids look like U0123ABCD')).default([]),
        allowedUserGroup: z.string().regex(SLACK_USERGROUP_ID, 'user group ids look like S0123ABCD').optional(),
        /**
         * The workspace(s) the bot answers: every slash command and click must come from one of
         * these team ids, or from a workspace of one of these Enterprise Grid organisations, and so
         * must the user's own workspace (a Slack Connect guest in an allowed channel is refused).
         * A workspace not listed in allowedTeams belongs to an allowed organisation only if Slack
         * says so (team.info, scope team:read; cached), never because the payload names the enterprise.
         */
        allowedTeams: z.array(z.string().regex(SLACK_TEAM_ID, 'team ids look like T0123ABCD')).default([]),
        allowedEnterprises: z.array(z.string().regex(SLACK_ENTERPRISE_ID, 'enterprise ids look like E0123ABCD')).default([]),
        /** Explicit opt-out of the workspace check (a local test app installed in one workspace). */
        allowAnyWorkspace: z.boolean().default(false),
        /** Explicit opt-out of the allow-lists (and of the workspace check), for a local development workspace only. */
        allowEveryone: z.boolean().default(false),
        incidentChannel: z.string().regex(SLACK_CHANNEL_ID, 'channel ids look like C0123ABCD'),
      })
      .refine((s) => s.allowEveryone || s.allowedUsers.length > 0 || s.allowedUserGroup !== undefined || s.allowedChannels.length > 0, {
        message: 'set at least one of allowedChannels, allowedUsers or allowedUserGroup (or allowEveryone: true for a local test workspace)',
      })
      .refine((s) => s.allowEveryone || s.allowAnyWorkspace || s.allowedTeams.length > 0 || s.allowedEnterprises.length > 0, {
        message: 'set allowedTeams (your workspace id, T0123ABCD) or allowedEnterprises (E0123ABCD): requests from any other workspace are refused (or allowAnyWorkspace: true for a local test app)',
      }),
    alerts: z
      .object({
        routes: z.array(alertRouteSchema).default([]),
        /**
         * Per source, the labels (dimensions) whose value names the cluster, tried before the
         * usual ones (cluster, kafka_cluster, cluster_name, Cluster Name); the value is matched
         * against each cluster's name and aliases.
         */
        clusterLabels: z.record(alertSourceName, z.array(z.string().min(1).max(200)).max(10)).default({}),
        /** Fire/resolve transitions of one alert group within this window count towards flapping. */
        flappingWindowSeconds: z.number().int().positive().default(3600),
        /** This many fire→resolve cycles within the window make a group flapping. */
        flappingCycles: z.number().int().min(2).default(2),
      })
      .prefault({}),
    /** How approved operations run across worker invocations. */
    operations: z
      .object({
        /** Seconds between two polls of a running reassignment (also the delay of the next tick when a worker parks it). */
        pollSeconds: z.number().int().min(1).max(900).default(10),
        /**
         * Plan requests (each posts a plan for approval and writes a request to the approvals
         * table): at most this many per user and per cluster within a sliding window, counted
         * across every instance (in the approvals table). Past it: "try again in N s".
         */
        planRequests: z
          .object({
            perUser: rateWindow(5, 60),
            perCluster: rateWindow(20, 60),
          })
          .prefault({}),
      })
      .prefault({}),
    /**
     * Commands that cost a cluster work (diagnose, transactions, can-restart, audit) and
     * timeline exports: at most this many per user, per channel and per cluster within each
     * fixed window (one atomic counter per window), counted across every instance (in the state
     * table). Past it: "try again in N s", the time left in the window.
     */
    commandLimits: z
      .object({
        perUser: rateWindow(6, 60),
        perChannel: rateWindow(20, 60),
        perCluster: rateWindow(30, 60),
      })
      .prefault({}),
    /** The scheduled risk audit (lib/audit/): where it posts and which clusters it covers. */
    audit: z
      .object({
        /** Channel for scheduled reports (default: slack.incidentChannel). */
        channel: z.string().regex(SLACK_CHANNEL_ID, 'channel ids look like C0123ABCD').optional(),
        /** Clusters the schedule audits (default: all). */
        clusters: z.array(z.string().regex(CLUSTER_NAME)).optional(),
      })
      .prefault({}),
    /** PagerDuty: incidents in, change events and notes out (lib/config/pagerduty.ts). */
    pagerduty: pagerDutySchema,
    approvals: z
      .object({
        approvers: z.array(z.string().regex(SLACK_USER_ID)).default([]),
        approverGroup: z.string().regex(SLACK_USERGROUP_ID).optional(),
        required: z.number().int().min(2, 'at least two distinct approvals are required').default(2),
        ttlSeconds: z.number().int().positive().max(86_400).default(1800),
      })
      .prefault({}),
  })
  .superRefine((c, ctx) => {
    const names = new Set<string>();
    for (const [i, cl] of c.clusters.entries()) {
      if (names.has(cl.name)) ctx.addIssue({ code: 'custom', path: ['clusters', i, 'name'], message: `duplicate cluster name "${cl.name}"` });
      names.add(cl.name);
    }
    for (const [i, name] of (c.audit.clusters ?? []).entries()) {
      if (!names.has(name)) ctx.addIssue({ code: 'custom', path: ['audit', 'clusters', i], message: `"${name}" is not one of the configured clusters` });
    }
    if (c.defaultCluster !== undefined && !names.has(c.defaultCluster)) {
      ctx.addIssue({ code: 'custom', path: ['defaultCluster'], message: `"${c.defaultCluster}" is not one of the configured clusters (${[...names].join(', ')})` });
    }
  });

export type Config = z.infer<typeof configSchema>;

/** Every alert source name the config uses (routes' match.source, clusterLabels' keys): checked against ALERT_SOURCES by the composition root. */
export function configuredSourceNames(config: Config): string[] {
  const names = config.alerts.routes.flatMap((r) => (r.match.source ? [r.match.source] : []));
  return [...new Set([...names, ...Object.keys(config.alerts.clusterLabels)])];
}
export type ClusterConfig = z.infer<typeof clusterSchema>;
export type AlertRoute = z.infer<typeof alertRouteSchema>;

/**
 * A person must fix the configuration (or the parameter it names) before it
 * can work; a parameter that could not be read for want of an answer says
 * transient instead (secrets.ts).
 */
export class ConfigError extends ResponderError {
  override name = 'ConfigError';
  constructor(
    message: string,
    readonly failure: FailureClass = 'needs-human',
  ) {
    super(message);
  }
}

/** "clusters.0.bootstrap.1: expected host:port" — one line per problem, paths a human can follow. */
export function formatIssues(error: z.ZodError): string {
  return error.issues.map((i) => `  - ${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`).join('\n');
}

export function parseConfig(input: unknown, origin = 'config'): Config {
  const result = configSchema.safeParse(input);
  if (!result.success) throw new ConfigError(`invalid ${origin}:\n${formatIssues(result.error)}`);
  return result.data;
}

/** Reads KR_CONFIG (JSON text) or KR_CONFIG_FILE (path to JSON). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  let text: string;
  let origin: string;
  if (env.KR_CONFIG) {
    text = env.KR_CONFIG;
    origin = 'KR_CONFIG';
  } else if (env.KR_CONFIG_FILE) {
    origin = env.KR_CONFIG_FILE;
    try {
      text = readFileSync(env.KR_CONFIG_FILE, 'utf8');
    } catch (err) {
      throw new ConfigError(`cannot read KR_CONFIG_FILE ${env.KR_CONFIG_FILE}: ${(err as Error).message}`);
    }
  } else {
    throw new ConfigError('no configuration: set KR_CONFIG (JSON) or KR_CONFIG_FILE (path to a JSON file)');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${origin} is not valid JSON: ${(err as Error).message}`);
  }
  return parseConfig(json, origin);
}

export function findCluster(config: Config, nameOrAlias: string | undefined): ClusterConfig | undefined {
  if (nameOrAlias === undefined) {
    if (config.defaultCluster) return config.clusters.find((c) => c.name === config.defaultCluster);
    return config.clusters.length === 1 ? config.clusters[0] : undefined;
  }
  return config.clusters.find((c) => c.name === nameOrAlias || c.aliases.includes(nameOrAlias));
}

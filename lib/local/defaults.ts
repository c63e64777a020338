// The configuration `serve` uses when none is given: the local Kafka sandbox
// with the local executor on its nodes' host directories (brokers and KRaft controllers).
import { binDir, bootstrapServers, nodeIds, nodeLayout, sandboxSettings } from '../../sandbox/layout.ts';
import { parseConfig, type Config } from '../config/schema.ts';

const list = (v: string | undefined) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean);

/**
 * Environment knobs of the sandbox default (all optional):
 *   KR_HOST_EXECUTOR=none          run as on Amazon MSK: no host access at all
 *   KR_THROTTLE_BYTES_PER_SEC=N    replication throttle of drains and raise-rf
 *   KR_OPERATIONS_POLL_SECONDS=N   how often a running reassignment is polled
 *   KR_RESTART_STOP_BOUND_SECONDS=N   how long a restart waits for a broker to stop gracefully (default 900)
 *   KR_RESTART_READY_TIMEOUT_SECONDS=N   how long a restarted broker may take to be back in every ISR
 */
export function sandboxConfig(env: NodeJS.ProcessEnv = process.env): { config: Config; notes: string[] } {
  const s = sandboxSettings(env);
  const notes: string[] = [];
  const noHosts = env.KR_HOST_EXECUTOR === 'none';
  if (noHosts) notes.push('KR_HOST_EXECUTOR=none: no host access (as on Amazon MSK); host checks are skipped, operations run over the Kafka protocol only');
  const channels = list(env.KR_SLACK_CHANNELS);
  const users = list(env.KR_SLACK_USERS);
  const everyone = channels.length === 0 && users.length === 0;
  const teams = list(env.KR_SLACK_TEAMS);
  if (!everyone && teams.length === 0) notes.push('KR_SLACK_TEAMS not set: requests from any Slack workspace are checked against the allow-lists only');
  if (everyone) notes.push('KR_SLACK_CHANNELS / KR_SLACK_USERS not set: every user and channel of the workspace may use this local bot');
  const config = parseConfig(
    {
      clusters: [
        {
          name: 'sandbox',
          bootstrap: list(env.KAFKA_BOOTSTRAP_SERVERS || bootstrapServers(s)),
          aliases: ['local'],
          hosts: noHosts
            ? { executor: 'none' }
            : {
                executor: 'local',
                // Every Kafka node's host, by node id: brokers and KRaft controllers (a rolling restart covers both); not a ZooKeeper server.
                hostDirs: Object.fromEntries(nodeIds(s).filter((id) => nodeLayout(s, id).role !== 'zookeeper').map((id) => [String(id), nodeLayout(s, id).hostDir])),
                service: {
                  unit: 'kafka',
                  ...(env.KR_RESTART_STOP_BOUND_SECONDS ? { stopBoundSeconds: Number(env.KR_RESTART_STOP_BOUND_SECONDS) } : {}),
                  ...(env.KR_RESTART_READY_TIMEOUT_SECONDS ? { readyTimeoutSeconds: Number(env.KR_RESTART_READY_TIMEOUT_SECONDS) } : {}),
                },
              },
          diagnosisTimeoutMs: 30_000,
          operations: {
            ...(noHosts ? {} : { kafkaBin: binDir(s) }),
            ...(env.KR_THROTTLE_BYTES_PER_SEC ? { throttleBytesPerSec: Number(env.KR_THROTTLE_BYTES_PER_SEC) } : {}),
          },
        },
      ],
      ...(env.KR_OPERATIONS_POLL_SECONDS ? { operations: { pollSeconds: Number(env.KR_OPERATIONS_POLL_SECONDS) } } : {}),
      defaultCluster: 'sandbox',
      slack: {
        allowedChannels: channels,
        allowedUsers: users,
        allowEveryone: everyone,
        allowedTeams: teams,
        allowAnyWorkspace: teams.length === 0,
        incidentChannel: env.KR_INCIDENT_CHANNEL ?? channels[0] ?? 'C0LOCALINCIDENTS',
      },
      // Two-person approvals for operations: KR_APPROVERS (Slack user ids, comma separated).
      approvals: { approvers: list(env.KR_APPROVERS), ...(env.KR_APPROVAL_TTL_SECONDS ? { ttlSeconds: Number(env.KR_APPROVAL_TTL_SECONDS) } : {}) },
    },
    'local sandbox configuration',
  );
  return { config, notes };
}

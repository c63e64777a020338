// Done-when of the "flood of made-up topics" issue, on the real sandbox: 200
// `/kafka diagnose sandbox nosuch-<i>` within a minute cost the cluster no host
// probe and no snapshot (at most load.maxSnapshotsInFlight would be the bound;
// none is due since no topic exists), and whoever is past the command bounds
// is told when to try again.
//
// The bot is composed as `serve` composes it: the sandbox configuration
// (lib/local/defaults.ts) with the product's default command limits and load
// settings untouched (they are what is under test), the real Slack handler and
// worker (lib/root/*, through test/slack/helpers/harness.ts), the real
// diagnoser on the real executor factory, a dynalite state table and the Slack
// stub. Only counters are added: around the executors (host probes), around
// the diagnoser the worker is given (snapshots, topic checks) and on the Kafka
// wire (which requests the cluster actually received).
//
// A positive control diagnoses a topic that does exist, with the same counters:
// it must probe and snapshot, or the zeros above would prove nothing.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDefaultDiagnoser, type Diagnoser } from '../../lib/diagnose/diagnoser.ts';
import { executorFactory, type ExecutorFactory } from '../../lib/hosts/executors.ts';
import { WireBroker } from '../../lib/kafka/wire.ts';
import { sandboxConfig } from '../../lib/local/defaults.ts';
import type { Config } from '../../lib/config/schema.ts';
import { createTopic, withAdmin } from '../../sandbox/client.ts';
import { startDynalite, type DynaliteHandle } from '../alerts/helpers/dynalite.ts';
import { hasSandbox } from '../sandbox/helpers.ts';
import { buildHarness, type Harness } from '../slack/helpers/harness.ts';
import { slashEvent } from '../slack/helpers/signed.ts';
import { SlackStub } from '../slack/helpers/slack-stub.ts';

const REQUESTS = 200;
const BURST = 20;
const USERS = Array.from({ length: 20 }, (_, i) => `U0USER${String(i + 1).padStart(2, '0')}`);
const CHANNELS = ['C0KAFKA1', 'C0KAFKA2', 'C0KAFKA3', 'C0KAFKA4'];
const CONTROL_TOPIC = 'unknown-topics-control';

/** What the cluster was asked for, counted where the product reaches it. */
interface Counts {
  /** Hosts a probe script ran on (each target of each executor run). */
  probes: number;
  /** Cluster reads (snapshot + probes) the worker started: calls into the diagnoser under the single-flight wrapper. */
  snapshots: number;
  snapshotsInFlight: number;
  maxSnapshotsInFlight: number;
  /** Metadata checks of a topic's existence. */
  topicChecks: number;
  restartChecks: number;
}

const zero = (): Counts => ({ probes: 0, snapshots: 0, snapshotsInFlight: 0, maxSnapshotsInFlight: 0, topicChecks: 0, restartChecks: 0 });

/** The product's executor factory, each executor counting the hosts it runs a script on. */
function countingExecutors(inner: ExecutorFactory, n: Counts): ExecutorFactory {
  return async (cluster) => {
    const executor = await inner(cluster);
    if (!executor) return null;
    return {
      kind: executor.kind,
      run: (targets, script) => {
        n.probes += targets.length;
        return executor.run(targets, script);
      },
    };
  };
}

/**
 * The diagnoser handed to buildWorker, counted. buildWorker wraps it in the
 * single-flight sharing, so what reaches here is a read of the cluster that
 * was not shared. checkTopic is passed on as is: without it the job would
 * skip the metadata check and diagnose, which is the behaviour under test.
 */
function countingDiagnoser(inner: Diagnoser, n: Counts): Diagnoser {
  const checkTopic = inner.checkTopic?.bind(inner);
  return {
    async diagnose(request) {
      n.snapshots++;
      n.snapshotsInFlight++;
      n.maxSnapshotsInFlight = Math.max(n.maxSnapshotsInFlight, n.snapshotsInFlight);
      try {
        return await inner.diagnose(request);
      } finally {
        n.snapshotsInFlight--;
      }
    },
    ...(checkTopic
      ? {
          checkTopic: (request: Parameters<typeof checkTopic>[0]) => {
            n.topicChecks++;
            return checkTopic(request);
          },
        }
      : {}),
    canRestart(request) {
      n.restartChecks++;
      return inner.canRestart(request);
    },
  };
}

/** `serve`'s default configuration for the sandbox, with these people and channels allowed; limits and load left at their defaults. */
function productConfig(): Config {
  const env: NodeJS.ProcessEnv = { ...process.env, KR_SLACK_USERS: USERS.join(','), KR_SLACK_CHANNELS: CHANNELS.join(','), KR_INCIDENT_CHANNEL: CHANNELS[0] };
  // A developer's shell may say "no host access": the control needs the local executor to have something to count.
  delete env.KR_HOST_EXECUTOR;
  return sandboxConfig(env).config;
}

interface Sent {
  i: number;
  user: string;
  channel: string;
  topic: string;
  responseId: string;
  status: number;
  text: string;
  sentAt: number;
  ackedAt: number;
}

const up = hasSandbox();

describe.skipIf(!up)('/kafka diagnose for topics that do not exist, on the sandbox, with the default bounds', { timeout: 600_000 }, () => {
  let stub: SlackStub;
  let db: DynaliteHandle | undefined;
  let seq = 0;

  beforeAll(async () => {
    stub = await new SlackStub().start();
  });
  // A fresh table per test: the command windows and shared flights of one test must not answer the other.
  beforeEach(async () => {
    stub.reset();
    await db?.close();
    db = await startDynalite();
  });
  afterAll(async () => {
    await stub?.stop();
    await db?.close();
    const bootstrap = process.env.KAFKA_BOOTSTRAP_SERVERS;
    if (bootstrap) await withAdmin(bootstrap, (admin) => admin.deleteTopics({ topics: [CONTROL_TOPIC], timeout: 30_000 })).catch(() => {});
  });

  function rig(): { h: Harness; counts: Counts; config: Config } {
    const counts = zero();
    const config = productConfig();
    const diagnoser = countingDiagnoser(createDefaultDiagnoser(countingExecutors(executorFactory(), counts)), counts);
    return { h: buildHarness({ stub, store: db!.store, diagnoser, config }), counts, config };
  }

  async function slash(h: Harness, i: number, text: string, user: string, channel: string, topic: string): Promise<Sent> {
    const responseId = `q${++seq}`;
    const sentAt = Date.now();
    // Each body differs (text, response_url), so each signature is new: no request is refused as a replay.
    const res = await h.handler(slashEvent({ text, user, channel, responseUrl: stub.responseUrl(responseId) }));
    const ackedAt = Date.now();
    const body = res.statusCode === 200 ? String((JSON.parse(res.body) as { text?: unknown }).text ?? '') : res.body;
    return { i, user, channel, topic, responseId, status: res.statusCode, text: body, sentAt, ackedAt };
  }

  it('200 requests for 200 made-up topics: no probe, no snapshot, one metadata check per admitted request, refusals say when to try again', async () => {
    const { h, counts, config } = rig();
    const limits = config.commandLimits;
    const load = config.clusters[0]!.load;
    const wire = vi.spyOn(WireBroker.prototype, 'request');
    const sent: Sent[] = [];
    const t0 = Date.now();
    try {
      // Bursts of concurrent requests, as a channel full of people would send them, while the worker already runs the first jobs.
      for (let b = 0; b < REQUESTS / BURST; b++) {
        const burst = Array.from({ length: BURST }, (_, k) => {
          const i = b * BURST + k;
          // Each user in several channels, each channel with several users.
          const user = USERS[i % USERS.length]!;
          const channel = CHANNELS[(i + Math.floor(i / USERS.length)) % CHANNELS.length]!;
          const topic = `nosuch-${i}`;
          return slash(h, i, `diagnose sandbox ${topic}`, user, channel, topic);
        });
        sent.push(...(await Promise.all(burst)));
      }
      const acked = Date.now();
      await h.queue.idle();
      const drained = Date.now();

      const apis: Record<string, number> = {};
      for (const call of wire.mock.calls) apis[call[0].apiName] = (apis[call[0].apiName] ?? 0) + 1;

      expect(sent.map((s) => s.status).filter((s) => s !== 200)).toEqual([]);
      const accepted = sent.filter((s) => /^:mag: Diagnosing \*/.test(s.text));
      const refused = sent.filter((s) => !accepted.includes(s));
      const windowsSpanned = Math.floor(acked / (limits.perCluster.windowSeconds * 1000)) - Math.floor(t0 / (limits.perCluster.windowSeconds * 1000)) + 1;

      console.log(
        `[unknown-topics] requests=${sent.length} accepted=${accepted.length} refused=${refused.length} probes=${counts.probes} snapshots=${counts.snapshots} ` +
          `maxSnapshotsInFlight=${counts.maxSnapshotsInFlight} (bound ${load.maxSnapshotsInFlight}) topicChecks=${counts.topicChecks} wire=${JSON.stringify(apis)} ` +
          `ackWallMs=${acked - t0} drainedWallMs=${drained - t0} budgetWindowsSpanned=${windowsSpanned} ` +
          `refusedBy=${JSON.stringify(Object.fromEntries(['from you', 'in this channel', 'for this cluster'].map((w) => [w, refused.filter((r) => r.text.includes(`requests ${w}:`)).length])))}`,
      );

      // Nothing reached a broker's host, and nothing read the cluster beyond one Metadata request per admitted name.
      expect(counts.probes).toBe(0);
      expect(counts.snapshots).toBe(0);
      expect(counts.maxSnapshotsInFlight).toBeLessThanOrEqual(load.maxSnapshotsInFlight);
      expect(counts.restartChecks).toBe(0);
      expect(counts.topicChecks).toBe(accepted.length);
      expect(Object.keys(apis).filter((api) => api !== 'Metadata')).toEqual([]);
      expect(apis.Metadata ?? 0).toBeGreaterThanOrEqual(counts.topicChecks);

      // Everyone got an answer, and the bounds held: the cluster's, each channel's and each user's, per window.
      expect(accepted.length + refused.length).toBe(REQUESTS);
      expect(accepted.length).toBeGreaterThan(0);
      expect(accepted.length).toBeLessThanOrEqual(limits.perCluster.requests * windowsSpanned);
      for (const c of CHANNELS) expect(accepted.filter((s) => s.channel === c).length).toBeLessThanOrEqual(limits.perChannel.requests * windowsSpanned);
      for (const u of USERS) expect(accepted.filter((s) => s.user === u).length).toBeLessThanOrEqual(limits.perUser.requests * windowsSpanned);
      for (const s of accepted) expect(s.text).toContain(`sandbox / ${s.topic}`);

      // Each refusal names its bound as configured and when to try again, within that bound's window.
      const bound = { 'from you': limits.perUser, 'in this channel': limits.perChannel, 'for this cluster': limits.perCluster } as const;
      for (const s of refused) {
        const m = /^:hourglass_flowing_sand: Too many diagnose requests (from you|in this channel|for this cluster): at most (\d+) every (\d+) s\b.*Nothing was started; try again in (\d+) s\.$/.exec(s.text);
        expect(m, `request ${s.i} (${s.user} in ${s.channel}): ${s.text}`).not.toBeNull();
        const limit = bound[m![1] as keyof typeof bound];
        expect(Number(m![2])).toBe(limit.requests);
        expect(Number(m![3])).toBe(limit.windowSeconds);
        const retry = Number(m![4]);
        expect(retry).toBeGreaterThanOrEqual(1);
        expect(retry).toBeLessThanOrEqual(limit.windowSeconds);
      }

      // Each admitted request was answered once, to its requester alone, from the metadata: the topic does not exist.
      const byResponse = new Map<string, string[]>();
      for (const r of stub.responses) {
        const id = r.path.slice('/response/'.length);
        byResponse.set(id, [...(byResponse.get(id) ?? []), String(r.body.text)]);
        expect(r.body.response_type).toBe('ephemeral');
      }
      for (const s of accepted) expect(byResponse.get(s.responseId), `answer to request ${s.i}`).toEqual([`topic ${s.topic} does not exist on sandbox`]);
      // A refused request was answered by its ack alone.
      for (const s of refused) expect(byResponse.has(s.responseId), `request ${s.i} refused, yet answered later`).toBe(false);
      expect(stub.responses).toHaveLength(accepted.length);
      // Nothing in any channel: not for the refused, nor for the made-up names.
      expect(stub.callsTo('chat.postMessage')).toEqual([]);
      expect(stub.callsTo('chat.update')).toEqual([]);
      expect(stub.messages).toEqual([]);
      expect(h.log.records.filter((r) => r.level === 'error')).toEqual([]);
    } finally {
      wire.mockRestore();
    }
  });

  it('control: a topic that exists is diagnosed, with host probes and one snapshot, through the same counters', async () => {
    const bootstrap = process.env.KAFKA_BOOTSTRAP_SERVERS;
    expect(bootstrap, 'the global setup exports the sandbox bootstrap').toBeTruthy();
    await withAdmin(bootstrap!, async (admin) => {
      if ((await admin.listTopics()).includes(CONTROL_TOPIC)) return;
      // One replica on a live broker: whatever an earlier file left stopped, the topic gets a leader.
      const { brokers } = await admin.describeCluster();
      await createTopic(admin, CONTROL_TOPIC, { assignment: [[brokers[0]!.nodeId]] });
    });
    const { h, counts } = rig();
    const wire = vi.spyOn(WireBroker.prototype, 'request');
    try {
      const sent = await slash(h, 0, `diagnose sandbox ${CONTROL_TOPIC}`, USERS[0]!, CHANNELS[0]!, CONTROL_TOPIC);
      await h.queue.idle();
      const apis = new Set(wire.mock.calls.map((c) => c[0].apiName));
      console.log(`[unknown-topics control] probes=${counts.probes} snapshots=${counts.snapshots} topicChecks=${counts.topicChecks} wireApis=${[...apis].sort().join(',')}`);
      expect(sent.text).toMatch(/^:mag: Diagnosing \*/);
      expect(counts.topicChecks).toBe(1);
      expect(counts.snapshots).toBe(1);
      expect(counts.probes).toBeGreaterThan(0);
      // The wire counter sees a snapshot when there is one (so its silence above means something).
      expect([...apis].some((api) => api !== 'Metadata')).toBe(true);
      // The findings went to a thread in the channel, not to the requester as "does not exist".
      expect(stub.topLevel(CHANNELS[0])).toHaveLength(1);
      expect(stub.responses.map((r) => String(r.body.text)).filter((t) => t.includes('does not exist'))).toEqual([]);
    } finally {
      wire.mockRestore();
    }
  });
});

// One run of the bot for the fault-injection suite: a fresh state table and
// approvals table on a shared dynalite, the Slack stub, a scripted cluster,
// the real Slack handler (fault-free: it only starts jobs) and the real
// worker. Jobs wait in a list, as in SQS; `drain` runs them in order with a
// worker process that stops after its N-th write, and delivers the job it
// was running again to a fresh process, as SQS does after the visibility
// timeout. `outcome` is what anyone can see afterwards: Slack, the tables,
// the cluster.
import { CreateTableCommand, DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { ApprovalService } from '../../lib/approvals/service.ts';
import { ApprovalStore } from '../../lib/approvals/store.ts';
import { approvalPolicy } from '../../lib/approvals/runtime.ts';
import { parseConfig, type Config } from '../../lib/config/schema.ts';
import type { Diagnoser } from '../../lib/diagnose/diagnoser.ts';
import type { Auditor } from '../../lib/audit/jobs.ts';
import type { OperationsBackend } from '../../lib/operations/backend.ts';
import type { Plan } from '../../lib/operations/types.ts';
import { newJob, type Job, type JobQueue } from '../../lib/queue/job.ts';
import { OPS_JOB_KINDS } from '../../lib/operations/requests.ts';
import { buildSlackHandler } from '../../lib/root/slack.ts';
import { buildWorker } from '../../lib/root/worker.ts';
import type { HttpEvent } from '../../lib/runtime/lambda-types.ts';
import { DynamoStateStore, STATE_TABLE_KEYS } from '../../lib/state/dynamo-state-store.ts';
import { webApiPoster } from '../../lib/slack/web.ts';
import type { LocalDynamo } from '../approvals/local-dynamodb.ts';
import { recordingLog } from '../helpers/recording-log.ts';
import { BASE_CONFIG } from '../slack/helpers/harness.ts';
import { SIGNING_SECRET, actionEvent, blockActionsPayload, slashEvent } from '../slack/helpers/signed.ts';
import type { SlackStub, StubMessage } from '../slack/helpers/slack-stub.ts';
import { ProcessStopped, StopPoint, stoppableDynamo, stoppableIo, stoppableQueue, stoppableSlack } from './stop.ts';

export const REQUESTER = 'U0CAROL';
export const APPROVERS = ['U0ALICE', 'U0BOB'] as const;

export const FAULT_CONFIG = {
  ...BASE_CONFIG,
  slack: { ...BASE_CONFIG.slack, allowedUsers: [REQUESTER, ...APPROVERS] },
  approvals: { approvers: [...APPROVERS] },
};

export interface WorldParts {
  dynamo: LocalDynamo;
  stub: SlackStub;
  diagnoser: Diagnoser;
  auditor: Auditor;
  /** A fresh scripted cluster per run. */
  operations: () => OperationsBackend;
  config?: unknown;
  /** The topics an outcome looks at (all when absent): on a shared cluster, the scenario's own. */
  topics?: () => string[];
}

export interface Outcome {
  /** Every message as it finally reads: "<channel> <top|reply to: parent>: text". */
  slack: string[];
  uploads: string[];
  responses: string[];
  /** Every unexpired item of both tables, by key. */
  items: string[];
  /** What the cluster holds that an operation changes. */
  cluster: string;
}

let tables = 0;
let seq = 0;

/** SQS delivers a job again once its visibility timeout has passed (serverless.yml: 1080 s). */
export const VISIBILITY_TIMEOUT_MS = 1080 * 1000;

/**
 * The bot's clock, moved forward when a scenario waits for SQS or the
 * schedule. Only Date.now moves (leases, TTLs and windows read it); timers
 * and sockets keep real time.
 */
const realNow = Date.now.bind(Date);
let clockOffset = 0;
function setClock(offsetMs: number): void {
  clockOffset = offsetMs;
  Date.now = clockOffset === 0 ? realNow : () => realNow() + clockOffset;
}

/** Digits, ids and times differ between runs; what a message says and how many there are must not. */
export function normalize(text: string): string {
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<id>')
    // Hex digests and ids may happen to be all digits: any hex run of 8 or more is an id (numbers that long too, alike in both runs).
    .replace(/\b[0-9a-f]{8,}\b/gi, '<id>')
    .replace(/\b(?=[0-9a-z]*\d)(?=[0-9a-z]*[a-z])[0-9a-z]{4,}\b/gi, '<id>')
    .replace(/\d+/g, '#');
}

export class World {
  readonly config: Config;
  readonly pending: Job[] = [];
  readonly log = recordingLog();
  readonly queue: JobQueue = { enqueue: async (job) => void this.pending.push(job) };
  readonly operations: OperationsBackend;
  private readonly approvalsTable: string;
  private readonly stateTable: string;
  private readonly healthy: ReturnType<World['process']>;
  private readonly handler: (e: HttpEvent) => Promise<{ statusCode: number; body: string }>;

  private constructor(
    private readonly parts: WorldParts,
    n: number,
  ) {
    this.config = parseConfig(parts.config ?? FAULT_CONFIG);
    this.operations = parts.operations();
    this.approvalsTable = `fault-approvals-${n}`;
    this.stateTable = `fault-state-${n}`;
    this.healthy = this.process(new StopPoint(null));
    this.handler = buildSlackHandler({
      config: this.config,
      queue: this.queue,
      store: this.healthy.store,
      log: this.log,
      signingSecret: SIGNING_SECRET,
      botToken: 'xoxb-test',
      slackApiUrl: parts.stub.apiUrl,
      approvals: this.healthy.approvals,
    });
  }

  static async create(parts: WorldParts): Promise<World> {
    const n = ++tables;
    parts.stub.reset();
    await parts.dynamo.client.send(new CreateTableCommand({ TableName: `fault-state-${n}`, BillingMode: 'PAY_PER_REQUEST', ...STATE_TABLE_KEYS }));
    // dynalite turns a new table ACTIVE within milliseconds: looked at every 5 ms, not 50, on each of ~200 runs.
    await new ApprovalStore(parts.dynamo.client, { tableName: `fault-approvals-${n}` }).ensureTable({ pollMs: 5 });
    return new World(parts, n);
  }

  /** One worker process: its own DynamoDB client, Slack poster and queue, all through `stop`. */
  private process(stop: StopPoint) {
    const client = stoppableDynamo(new DynamoDBClient({ endpoint: this.parts.dynamo.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 }), stop);
    const store = new DynamoStateStore(client, this.stateTable);
    const approvals = new ApprovalService<Plan>({ store: new ApprovalStore(client, { tableName: this.approvalsTable }), policy: approvalPolicy(this.config) });
    const slack = stoppableSlack(webApiPoster('xoxb-test', this.parts.stub.apiUrl, { postIntervalMs: 0, store, log: this.log }), stop);
    const ops = this.operations;
    const operations: OperationsBackend = { plan: (c, r) => stop.read('plan', () => ops.plan(c, r)), io: (c) => stoppableIo(ops.io(c), stop) };
    const worker = buildWorker(this.config, { store, slack, log: this.log }, { diagnoser: this.parts.diagnoser, auditor: this.parts.auditor, approvals, operations });
    const queue = stoppableQueue(this.queue, stop);
    return { store, approvals, run: (job: Job) => worker.run(job, { queue, signal: stop.abort.signal }), close: () => client.destroy() };
  }

  /** A signed `/kafka …` command into the real Slack handler; its jobs wait in `pending`. */
  async slash(text: string, user: string = REQUESTER, channel = 'C0OPS'): Promise<string> {
    const res = await this.handler(slashEvent({ text, user, channel, responseUrl: this.parts.stub.responseUrl(`s${++seq}`) }, { timestamp: Math.floor(Date.now() / 1000) - (seq % 50) }));
    return res.body;
  }

  /** A signed button click on a posted message. */
  async click(actionId: string, value: string, user: string, message: StubMessage): Promise<void> {
    const id = `c${++seq}`;
    const payload = blockActionsPayload({ actionId, value, user, message, responseUrl: this.parts.stub.responseUrl(id), actionTs: `1700000100.${String(seq).padStart(6, '0')}` });
    await this.handler(actionEvent(payload, { timestamp: Math.floor(Date.now() / 1000) - (seq % 50) }));
  }

  /** How far the bot's clock has been moved. */
  get clock(): number {
    return clockOffset;
  }

  /** Moves the bot's clock forward (a scenario waiting for an expiry or a grace period). */
  advance(ms: number): void {
    setClock(clockOffset + ms);
  }

  /** Runs every pending job (and the jobs they enqueue) fault-free: a scenario's set-up. */
  async settle(): Promise<void> {
    await this.drain(null);
  }

  /**
   * Runs the pending jobs in order. The process stops after its `stopAfter`-th
   * write (counted across the jobs it runs); the job it was running is then
   * delivered again to a fresh process, and the rest run there. Returns the
   * writes the first process made.
   */
  async drain(stopAfter: number | null): Promise<{ writes: string[]; stoppedAt: string | null }> {
    const first = new StopPoint(stopAfter);
    let current = this.process(first);
    let stoppedAt: string | null = null;
    for (let guard = 0; this.pending.length > 0; guard++) {
      if (guard > 500) throw new Error('more than 500 jobs: a job keeps enqueueing itself');
      const job = this.pending.shift()!;
      try {
        await current.run(job);
      } catch (err) {
        if (!first.dead) throw err;
      }
      if (first.dead && stoppedAt === null) {
        stoppedAt = first.writes.at(-1) ?? null;
        // Its calls already under way (a concurrent write) land or fail before its client goes;
        // anything it starts from now on (timers, background writes) finds its process gone.
        await first.settled();
        current.close();
        // SQS hands the message out again only after its visibility timeout: leases the dead process held have run out by then.
        setClock(clockOffset + VISIBILITY_TIMEOUT_MS);
        current = this.process(new StopPoint(null));
        await current.run(job);
      }
    }
    current.close();
    return { writes: first.writes, stoppedAt };
  }

  /**
   * Time passes, as it would after the run: the clock moves to the same
   * point whether or not a process stopped on the way (what expires has
   * expired in both, an unapproved plan too), and the minute sweep runs, as EventBridge starts it,
   * to pick up whatever a stopped process left for it.
   */
  async afterwards(from: number): Promise<void> {
    // Past a plan's approval window too (the retry of a plan job made it 18 minutes later): both runs' plans have expired.
    setClock(from + 2 * VISIBILITY_TIMEOUT_MS + this.config.approvals.ttlSeconds * 1000 + 60_000);
    this.pending.push(newJob(OPS_JOB_KINDS.sweep, {}, `sweep-${++seq}`));
    await this.drain(null);
  }

  async outcome(): Promise<Outcome> {
    const { stub } = this.parts;
    const parentText = new Map(stub.messages.map((m) => [m.ts, normalize(m.text)]));
    const slack = stub.messages.map((m) => `${m.channel} ${m.thread_ts ? `reply to: ${parentText.get(m.thread_ts) ?? '?'}` : 'top'}: ${normalize(m.text)}`).sort();
    const uploads = stub.uploads.map((u) => `${u.channel ?? '?'} ${normalize(u.title ?? u.filename ?? '')}`).sort();
    const responses = stub.responses.map((r) => normalize(String(r.body.text ?? ''))).sort();
    const items = [...(await this.items(this.stateTable)), ...(await this.items(this.approvalsTable))].sort();
    return { slack, uploads, responses, items, cluster: await this.clusterState() };
  }

  private async items(table: string): Promise<string[]> {
    const now = Math.floor(Date.now() / 1000);
    const keys: string[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.parts.dynamo.client.send(new ScanCommand({ TableName: table, ...(start ? { ExclusiveStartKey: start as never } : {}) }));
      for (const item of out.Items ?? []) {
        const expires = Number(item.expiresAt?.N ?? item.ttl?.N ?? Infinity);
        // A removed state item is a tombstone that has expired: gone for every reader.
        if (expires <= now) continue;
        // An audit record says what happened: its type is part of what is compared.
        const type = item.recordType?.S === 'audit' ? ` ${item.type?.S ?? ''}` : '';
        keys.push(normalize(`${table.replace(/-\d+$/, '')} ${item.pk?.S ?? ''} ${item.sk?.S ?? ''}${type}`.trim()));
      }
      start = out.LastEvaluatedKey;
    } while (start);
    return keys;
  }

  private async clusterState(): Promise<string> {
    const io = this.operations.io(this.config.clusters[0]!);
    const watched = this.parts.topics?.() ?? null;
    const snap = await io.snapshot(watched);
    const admin = await io.openAdmin();
    try {
      const moving = (await admin.listPartitionReassignments()).filter((m) => !watched || watched.includes(m.topic));
      const configs = await admin.describeConfigs([
        ...snap.brokers.map((b) => ({ type: 'broker' as const, name: String(b.id) })),
        ...snap.topics.filter((t) => !watched || watched.includes(t.name)).map((t) => ({ type: 'topic' as const, name: t.name })),
      ]);
      const throttles = configs.flatMap((c) => (c.entries ?? []).filter((e) => /throttle/i.test(e.name) && e.value).map((e) => `${c.name} ${e.name}=${e.value}`));
      const replicas = snap.topics.filter((t) => !watched || watched.includes(t.name)).flatMap((t) => t.partitions.map((p) => `${t.name}-${p.partition} ${p.replicas.join(',')}`));
      return normalize(JSON.stringify({ moving, throttles, replicas }));
    } finally {
      await admin.close();
    }
  }

  async close(): Promise<void> {
    setClock(0);
    this.healthy.close();
  }
}

export { ProcessStopped };

// The worker side of an alert: one thread per alert group, state changes
// edited into its parent message, flapping called out, and the routed
// diagnosis posted in the thread.
//
// A retry of the job (SQS delivers it again when its worker died) repeats
// nothing the dead attempt got into Slack: each message is its own purpose of
// the job (lib/worker/post-once.ts), and a status change is recorded as owed
// in the same write that changes it, so a retry that sees no change still
// announces the one the dead attempt did not.
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { renderDiagnosis, renderProgress } from '../diagnose/render-slack.ts';
import { renderFailure } from '../slack/blocks.ts';
import { clipMrkdwn } from '../slack/limits.ts';
import { closeIncident, upsertIncident } from '../state/activity.ts';
import { loggedFindings, openIncident, recordIncidentEvent } from '../state/incident-log.ts';
import { withTimelineButton } from '../timeline/button.ts';
import { stateClusterHistory } from '../diagnose/cluster-history-store.ts';
import { progressUpdater } from '../diagnose/jobs.ts';
import { postReportChart } from '../diagnose/metrics/post.ts';
import { errorMessage } from '../runtime/errors.ts';
import { mutate } from '../state/state-store.ts';
import { oncePoster, type OncePoster } from '../worker/post-once.ts';
import type { Diagnoser } from '../diagnose/diagnoser.ts';
import type { JobContext, JobHandler } from '../worker/worker.ts';
import { PermanentJobError } from '../worker/worker.ts';
import { isSpilled, readSpilled, spilledPayloadSchema } from '../queue/oversize.ts';
import { alertDigestSchema } from './digest.ts';
import { ALERT_JOB_KIND, type AlertEvent, type AlertSource } from './event.ts';
import { renderDigestReply } from './big-group-reply.ts';
import { countCycles, isFlapping, lastFiringDurationMs, recordTransition, type Transition } from './flapping.ts';
import { renderFlappingCallout, renderTransitionReply, renderTriageParent } from './thread-messages.ts';
import { routeAlert } from './routing.ts';
import { incidentIdOf } from '../pagerduty/inbound.ts';
import { queueIncidentNote } from '../pagerduty/notes.ts';
import type { ClusterConfig } from '../config/schema.ts';

export const alertEventSchema = z.object({
  // Any source of the table (lib/alerts/sources/): the job came from our own intake.
  source: z.custom<AlertSource>((v) => typeof v === 'string' && /^[a-z][a-z0-9-]{0,39}$/.test(v), 'not an alert source name'),
  groupKey: z.string().min(1),
  status: z.enum(['firing', 'resolved']),
  alertname: z.string(),
  title: z.string(),
  summary: z.string(),
  labels: z.record(z.string(), z.string()),
  at: z.string(),
  clusterHint: z.string().optional(),
  brokers: z.array(z.number().int().min(0)),
  topics: z.array(z.string()),
  count: z.number().int().min(0),
  digest: alertDigestSchema.optional(),
  url: z.string().optional(),
  links: z.array(z.object({ label: z.string(), url: z.string() })).optional(),
}) satisfies z.ZodType<AlertEvent>;

export interface AlertGroupState {
  groupKey: string;
  channel: string;
  /** Parent message of the group's thread, once posted. */
  ts?: string;
  status: AlertEvent['status'];
  title: string;
  cluster?: string;
  openedAt: string;
  history: Transition[];
  flappingAnnounced: boolean;
  lastDiagnosisAt?: number;
  /** The job that started the last diagnosis: its retry may finish it. */
  lastDiagnosisJobId?: string;
  /** The size of the group the last digest reply described: a new one is posted when it changes. */
  digestPosted?: { total: number; firing: number };
  /**
   * A status change not yet announced, and the job that owes it: written with
   * the change, cleared once the timeline and the thread show it. Only that
   * job (its retry) announces it: another job cannot know whether it is in Slack.
   */
  transitionOwed?: { jobId: string; status: AlertEvent['status']; reply: boolean };
}

/** Thread state lives for two weeks after the group's last change. */
const GROUP_TTL_SECONDS = 14 * 24 * 3600;
/** A flapping group is not re-diagnosed on every fire. */
const REDIAGNOSE_AFTER_MS = 10 * 60 * 1000;

export function groupStateKey(groupKey: string): string {
  return `alert-group:${createHash('sha256').update(groupKey).digest('hex').slice(0, 40)}`;
}

type RoutedAlert = ReturnType<typeof routeAlert>;

/** One alert job's triage: what its steps share. */
interface TriageRun {
  event: AlertEvent;
  ctx: JobContext & { diagnoser: Diagnoser };
  routed: RoutedAlert;
  /** The group as recorded with this event. */
  state: AlertGroupState;
  key: string;
  /** When the alert changed (epoch ms, never later than now). */
  at: number;
  now: number;
  /** The job's posts, read from the store on first use. */
  once: () => Promise<OncePoster>;
  channel: string;
}

/** The group's state with this event: its status, the transition history, and the announcement this job owes. */
function recordGroup(store: JobContext['store'], key: string, event: AlertEvent, routed: RoutedAlert, at: number, now: number, jobId: string, windowMs: number): Promise<AlertGroupState> {
  return mutate<AlertGroupState>(store, key, GROUP_TTL_SECONDS, (cur) => {
    const history = recordTransition(cur?.history ?? [], { status: event.status, at }, windowMs, now);
    return {
      groupKey: event.groupKey,
      channel: cur?.channel ?? routed.channel,
      ...(cur?.ts ? { ts: cur.ts } : {}),
      status: event.status,
      title: event.title,
      ...(routed.cluster ? { cluster: routed.cluster.name } : cur?.cluster ? { cluster: cur.cluster } : {}),
      openedAt: cur?.openedAt ?? new Date(now).toISOString(),
      history,
      flappingAnnounced: cur?.flappingAnnounced ?? false,
      ...(cur?.lastDiagnosisAt ? { lastDiagnosisAt: cur.lastDiagnosisAt } : {}),
      ...(cur?.lastDiagnosisJobId ? { lastDiagnosisJobId: cur.lastDiagnosisJobId } : {}),
      ...(cur?.digestPosted ? { digestPosted: cur.digestPosted } : {}),
      // A reply when the thread is there already; otherwise the parent announces it.
      ...(!cur || cur.status !== event.status ? { transitionOwed: { jobId: jobId, status: event.status, reply: Boolean(cur?.ts) } } : cur.transitionOwed ? { transitionOwed: cur.transitionOwed } : {}),
    };
  });
}

export async function triageAlert(event: AlertEvent, ctx: JobContext & { diagnoser: Diagnoser }, now = Date.now()): Promise<void> {
  const { store, log, config, job } = ctx;
  const routed = routeAlert(event, config);
  const windowMs = config.alerts.flappingWindowSeconds * 1000;
  const windowMinutes = Math.round(config.alerts.flappingWindowSeconds / 60);
  const key = groupStateKey(event.groupKey);
  const at = Number.isFinite(Date.parse(event.at)) ? Math.min(Date.parse(event.at), now) : now;

  const state = await recordGroup(store, key, event, routed, at, now, job.id, windowMs);
  const flapping = isFlapping(state.history, config.alerts.flappingCycles);
  const cycles = countCycles(state.history);
  const view = { status: state.status, flapping, cycles, windowMinutes };
  const parentMessage = withTimelineButton(renderTriageParent(event, routed, view));
  log.info('alert triage', { groupKey: event.groupKey, status: event.status, flapping, cycles, cluster: routed.cluster?.name });

  // Resolved with no thread yet: nothing was ever announced, say nothing now (an Alertmanager restart replays resolutions).
  if (!state.ts && event.status === 'resolved' && !flapping) {
    log.info('resolved alert without a thread; nothing to update');
    return;
  }

  // Read from the store only when this job posts: a repeat notification of a group only edits its parent.
  let onceP: Promise<OncePoster> | undefined;
  const once = () => (onceP ??= oncePoster(ctx, job.id));
  const run: TriageRun = { event, ctx, routed, state, key, at, now, once, channel: state.channel };
  const threadTs = await announce(run, parentMessage);
  await followUps(run, threadTs, flapping, cycles, windowMinutes);
  if (event.status !== 'firing') return;
  if (!routed.cluster) return postUnknownCluster(run, threadTs);
  await diagnoseInThread(run, routed.cluster, threadTs);
}

/** The thread: opened with the parent (or the parent updated), the transition recorded in the timeline and replied. */
async function announce(t: TriageRun, parentMessage: ReturnType<typeof renderTriageParent>): Promise<string> {
  const { event, state, key, at, once, channel } = t;
  const { slack, store, log, job } = t.ctx;
  // The postmortem timeline: the thread is the incident; transitions only (Alertmanager repeats a firing group).
  // Recorded before the thread shows the change, so a timeline asked for from what it shows has it.
  const owed = state.transitionOwed?.jobId === job.id && state.transitionOwed.status === event.status ? state.transitionOwed : null;
  // Keyed by the job: a retry records the same event again, not a second one.
  const recordTransitionIn = async (threadTs: string) => {
    if (!owed) return;
    await openIncident(store, { channel, threadTs, title: event.title, ...(state.cluster ? { cluster: state.cluster } : {}), openedAt: state.openedAt, origin: 'alert' }, log);
    await recordIncidentEvent(store, { channel, threadTs }, { type: 'alert', at: new Date(at).toISOString(), status: event.status, source: event.source, alertname: event.alertname, title: event.title, ...(state.cluster ? { cluster: state.cluster } : {}), count: event.count }, log, `${job.id}/alert`);
  };
  let threadTs = state.ts;
  if (threadTs) await recordTransitionIn(threadTs);
  if (!threadTs) {
    const posted = await (await once()).post('parent', { channel, ...parentMessage });
    // Record the thread; if another worker recorded one first, ours becomes a reply in theirs.
    const saved = await mutate<AlertGroupState>(store, key, GROUP_TTL_SECONDS, (cur) => ({ ...(cur ?? state), ts: cur?.ts ?? posted.ts }));
    threadTs = saved.ts!;
    if (threadTs !== posted.ts) log.warn('lost the race to open the alert thread', { winner: threadTs, ours: posted.ts });
    await recordTransitionIn(threadTs);
  } else {
    await slack.update({ channel, ts: threadTs, ...parentMessage });
    if (owed?.reply) await (await once()).post('transition', { channel, thread_ts: threadTs, ...renderTransitionReply(event, lastFiringDurationMs(state.history)) });
  }
  if (owed) await mutate<AlertGroupState>(store, key, GROUP_TTL_SECONDS, (cur) => dropOwed(cur ?? state, job.id));
  return threadTs;
}

/** The thread's follow-ups: a big group's digest, the flapping callout, and the group in /kafka status. */
async function followUps(t: TriageRun, threadTs: string, flapping: boolean, cycles: number, windowMinutes: number): Promise<void> {
  const { event, state, key, once, channel } = t;
  const { store, log } = t.ctx;
  // A big group's size and first alerts, once per size it reaches (Alertmanager re-sends the group every group_interval).
  const digest = event.digest;
  if (digest && digest.total > 1 && (state.digestPosted?.total !== digest.total || state.digestPosted.firing !== digest.firing)) {
    await (await once()).post(`digest-${digest.total}-${digest.firing}`, { channel, thread_ts: threadTs, ...renderDigestReply(digest) });
    await mutate<AlertGroupState>(store, key, GROUP_TTL_SECONDS, (cur) => ({ ...(cur ?? state), digestPosted: { total: digest.total, firing: digest.firing } }));
  }

  if (flapping && !state.flappingAnnounced) {
    await (await once()).post('flapping', { channel, thread_ts: threadTs, ...renderFlappingCallout(cycles, windowMinutes) });
    await mutate<AlertGroupState>(store, key, GROUP_TTL_SECONDS, (cur) => ({ ...(cur ?? state), flappingAnnounced: true }));
  }

  // /kafka status: a flapping group stays listed even while momentarily resolved.
  if (event.status === 'firing' || flapping) {
    await upsertIncident(store, {
      groupKey: event.groupKey,
      title: event.title,
      ...(state.cluster ? { cluster: state.cluster } : {}),
      openedAt: state.openedAt,
      channelId: channel,
      threadTs,
      flapping,
    }, log);
  } else {
    await closeIncident(store, event.groupKey, log);
  }
}

/** No configured cluster matches the alert: say why in the thread, and which label or alias to add (routing escaped the alert's words). */
async function postUnknownCluster(t: TriageRun, threadTs: string): Promise<void> {
  const { once, channel, routed } = t;
  const unmapped = routed.unmapped ?? { why: 'no configured cluster matches it', fix: "add the cluster's name to its `aliases` in the configuration" };
  await (await once()).post('unknown-cluster', {
    channel,
    thread_ts: threadTs,
    text: 'No diagnosis: unknown cluster',
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: clipMrkdwn(`:grey_question: I can't tell which configured cluster this alert is about: ${unmapped.why}.\n*To map it:* ${unmapped.fix}.`, 2900) } }],
  });
}

/** The diagnosis in the thread: once per group per REDIAGNOSE_AFTER_MS, finished by a retry of the job that started it. */
async function diagnoseInThread(t: TriageRun, cluster: ClusterConfig, threadTs: string): Promise<void> {
  const { event, state, key, at, now, once, channel, routed } = t;
  const { slack, store, log, job } = t.ctx;
  const ctx = t.ctx;
  // A retry of the job that started the last diagnosis (its worker died) finishes it; anyone else skips a recent one.
  const retryOfLast = state.lastDiagnosisJobId === job.id;
  if (state.lastDiagnosisAt && now - state.lastDiagnosisAt < REDIAGNOSE_AFTER_MS && !retryOfLast) {
    log.info('diagnosed recently; not re-running', { lastDiagnosisAt: state.lastDiagnosisAt });
    return;
  }
  const posts = await once();
  // Finished (result, file, graph) by an earlier attempt; `resultPosted` is what attempts before per-purpose posts recorded.
  if (posts.done('diagnosis') || posts.recorded.resultPosted) {
    log.info('diagnosis result already posted by an earlier attempt');
    return;
  }
  if (!retryOfLast) await mutate<AlertGroupState>(store, key, GROUP_TTL_SECONDS, (cur) => ({ ...(cur ?? state), lastDiagnosisAt: now, lastDiagnosisJobId: job.id }));

  // With sharing on, every alert of a storm asks for the same cluster-wide diagnosis (all hosts, all
  // topics), so they share one per window instead of one per route's topic or broker.
  const shared = cluster.load.shareDiagnosisSeconds > 0;
  const topic = shared ? undefined : routed.topic;
  const brokers = shared ? undefined : routed.brokers;
  const what = topic ? `${cluster.name} / ${topic}` : cluster.name;
  const started = await posts.post('progress', { channel, thread_ts: threadTs, ...renderProgress(what, null) });
  if (started.earlier) await slack.update({ channel, ts: started.ts, ...renderProgress(what, null) });
  const progressMsg = { ts: started.ts };
  const progress = progressUpdater((p) => slack.update({ channel, ts: progressMsg.ts, ...renderProgress(what, p) }), log);
  try {
    const remaining = ctx.remainingMs?.();
    const report = await ctx.diagnoser.diagnose({
      cluster,
      ...(topic ? { topic } : {}),
      ...(brokers ? { brokers } : {}),
      correlationId: job.correlationId,
      alert: { atMs: at, metric: event.alertname },
      clusterHistory: stateClusterHistory(store, cluster.name),
      onProgress: (p) => progress.report(p),
      // A request joining a diagnosis already running must not wait past this worker's time.
      ...(remaining !== undefined ? { deadlineMs: Math.max(5_000, remaining - 15_000) } : {}),
    });
    await progress.close();
    const rendered = renderDiagnosis(report, { correlationId: job.correlationId, ...(topic ? { topic } : {}) });
    // In the timeline before it is in the thread (a Timeline click right after sees it).
    await recordIncidentEvent(store, { channel, threadTs }, { type: 'diagnosis', at: report.startedAt, cluster: report.cluster, durationMs: report.durationMs, partial: report.partial, ...loggedFindings(report.findings), changes: report.changes ?? [] }, log, `${job.id}/diagnosis`);
    await slack.update({ channel, ts: progressMsg.ts, text: rendered.text, blocks: rendered.blocks });
    // Uploads carry no metadata: each flag is written right after Slack accepted it.
    if (rendered.file) await posts.upload('file', { channel, thread_ts: threadTs, ...rendered.file });
    await posts.once('chart', async () => void (await postReportChart(slack, { channel, thread_ts: threadTs }, report, log, at)));
    await posts.mark('diagnosis');
    // From PagerDuty: the findings as a note on its incident (queued once per job, never in the thread's way).
    const incidentId = incidentIdOf(event);
    if (incidentId) await queueIncidentNote(ctx, { incidentId, report, channel, threadTs, key: job.id }).catch((err: unknown) => log.warn('could not queue the PagerDuty note', { error: errorMessage(err) }));
  } catch (err) {
    await progress.close();
    log.error('alert diagnosis failed', { error: errorMessage(err) });
    await slack.update({ channel, ts: progressMsg.ts, ...renderFailure(`Diagnosis of ${what}`, errorMessage(err), job.correlationId) });
  }
}

/** The group without the transition `jobId` owed (announced now); another job's stays. */
function dropOwed(state: AlertGroupState, jobId: string): AlertGroupState {
  if (state.transitionOwed?.jobId !== jobId) return state;
  const { transitionOwed: _announced, ...rest } = state;
  return rest;
}

/** An alert job's payload: the event, or the key of the event the intake stored (too large for a queue message). */
export const alertJobPayloadSchema = z.union([alertEventSchema, spilledPayloadSchema]);
type AlertJobPayload = z.infer<typeof alertJobPayloadSchema>;

async function eventOf(payload: AlertJobPayload, ctx: JobContext): Promise<AlertEvent> {
  if (!isSpilled(payload)) return payload;
  // A missing part throws an ordinary error: the job is retried, then dead-lettered, never silently dropped.
  const stored = alertEventSchema.safeParse(await readSpilled(payload, ctx.store));
  if (!stored.success) throw new PermanentJobError(`stored alert payload ${payload.spilled.key} is not an alert event`);
  ctx.log.info('alert payload read back from the state table', { key: payload.spilled.key, bytes: payload.spilled.bytes });
  return stored.data;
}

/** The alerts feature's job kind, for the worker's registry (lib/root/worker.ts). */
export function alertJobs(deps: { diagnoser: Diagnoser }): JobHandler[] {
  const triage: JobHandler<AlertJobPayload> = {
    kind: ALERT_JOB_KIND,
    schema: alertJobPayloadSchema,
    run: async (payload, ctx) => triageAlert(await eventOf(payload, ctx), { ...ctx, ...deps }),
  };
  return [triage];
}

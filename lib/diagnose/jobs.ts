// The worker side of `/kafka diagnose` and `/kafka can-restart`: post a
// progress message, run the diagnosis, edit the message as hosts answer,
// then post the findings in its thread.
//
// A retried job (SQS delivers it again when its worker died) repeats none of
// what the dead attempt got into Slack: every post and upload is its own
// purpose (lib/worker/post-once.ts), so the retry completes what is missing.
import { findCluster, type ClusterConfig } from '../config/schema.ts';
import { renderFailure, type SlackMessage } from '../slack/blocks.ts';
import { renderCanRestart, renderDiagnosis, renderDone, renderProgress, renderUnknownTopic } from './render-slack.ts';
import type { SlackPoster } from '../slack/web.ts';
import { finishActivity } from '../state/activity.ts';
import { loggedFindings, openIncident, recordIncidentEvent } from '../state/incident-log.ts';
import { withTimelineButton } from '../timeline/button.ts';
import { stateClusterHistory } from './cluster-history-store.ts';
import { recordPosted } from '../worker/posted.ts';
import { oncePoster, type OncePoster } from '../worker/post-once.ts';
import type { DiagnoseProgress, Diagnoser } from './diagnoser.ts';
import type { DiagnosisReport } from './types.ts';
import type { SlackOrigin } from '../queue/job.ts';
import { DIAGNOSE_JOB_KINDS, canRestartJobSchema, diagnoseJobSchema, type CanRestartJob, type DiagnoseJob } from './kinds.ts';
import type { Log } from '../runtime/log.ts';
import { stateLagHistory } from './lag-history-store.ts';
import { postReportChart } from './metrics/post.ts';
import { TRANSACTION_FINDING_KINDS } from './checks/transactions.ts';
import { errorMessage } from '../runtime/errors.ts';
import { PermanentJobError, type JobContext, type JobHandler } from '../worker/worker.ts';

/**
 * Posts where the request came from; if the bot may not post there (not in
 * the channel), says so through response_url instead of failing silently.
 */
async function postOrExplain(slack: SlackPoster, origin: SlackOrigin, message: SlackMessage, log: Log) {
  return explainFailure(slack, origin, log, () => slack.post({ ...where(origin), ...message }));
}

const where = (origin: SlackOrigin) => ({ channel: origin.channelId, ...(origin.threadTs ? { thread_ts: origin.threadTs } : {}) });

async function explainFailure<T>(slack: SlackPoster, origin: SlackOrigin, log: Log, post: () => Promise<T>): Promise<T> {
  try {
    return await post();
  } catch (err) {
    log.warn('could not post to channel', { error: errorMessage(err) });
    if (origin.responseUrl) {
      await slack
        .respond(origin.responseUrl, {
          response_type: 'ephemeral',
          text: `I could not post in this channel (${errorMessage(err)}). Invite me with \`/invite @kafka-responder\` and try again.`,
        })
        .catch((e) => log.warn('response_url failed too', { error: errorMessage(e) }));
    }
    throw new PermanentJobError(`cannot post to ${origin.channelId}: ${errorMessage(err)}`);
  }
}

/** An answer for the requester alone (response_url), in the channel only when there is none: a flood of typos must not flood the channel. */
async function answerRequester(slack: SlackPoster, origin: SlackOrigin, message: SlackMessage, log: Log): Promise<void> {
  if (origin.responseUrl) {
    try {
      await slack.respond(origin.responseUrl, { response_type: 'ephemeral', ...message });
      return;
    } catch (err) {
      log.warn('response_url failed; answering in the channel', { error: errorMessage(err) });
    }
  }
  await postOrExplain(slack, origin, message, log);
}

/**
 * Edits the progress message as probes come back. Updates are serialised and
 * coalesced: while one chat.update is in flight only the latest progress is
 * kept, so a burst of answers costs two calls, not one per host.
 */
export function progressUpdater(update: (p: DiagnoseProgress) => Promise<void>, log: Log) {
  let latest: DiagnoseProgress | null = null;
  let running: Promise<void> | null = null;
  let closed = false;
  const pump = async () => {
    while (latest) {
      const p = latest;
      latest = null;
      try {
        await update(p);
      } catch (err) {
        log.warn('progress update failed', { error: errorMessage(err) });
      }
    }
    running = null;
  };
  return {
    report(p: DiagnoseProgress) {
      if (p.commandId) log.info('host probe answered', { brokerId: p.brokerId, commandId: p.commandId, done: p.done, total: p.total });
      if (closed) return;
      latest = p;
      running ??= pump();
    },
    /**
     * Stops editing and waits for the edit in flight. Called before the final
     * edit: probes still answering after a failed snapshot must not overwrite it.
     */
    async close() {
      closed = true;
      latest = null;
      while (running) await running;
    },
  };
}

/**
 * A job answered with one message where it was asked: the configured cluster,
 * the message `answer` builds (a failure becomes a failure message, never a
 * retry that would post twice), then the activity cleared.
 */
export async function answerInOneMessage(
  ctx: JobContext,
  payload: { cluster: string; origin: SlackOrigin },
  what: string,
  answer: (cluster: ClusterConfig) => Promise<SlackMessage>,
): Promise<void> {
  const { slack, log, job } = ctx;
  try {
    const cluster = findCluster(ctx.config, payload.cluster);
    if (!cluster) throw new PermanentJobError(`cluster "${payload.cluster}" is not configured`);
    // One answer per job: a retry whose answer Slack already shows neither asks the cluster again nor posts it twice.
    const once = await oncePoster(ctx, job.id);
    await explainFailure(slack, payload.origin, log, () =>
      once.postBuilt('answer', async () => {
        let message: SlackMessage;
        try {
          message = await answer(cluster);
        } catch (err) {
          message = renderFailure(what, errorMessage(err), job.correlationId);
        }
        return { ...where(payload.origin), ...message };
      }),
    );
  } finally {
    await finishActivity(ctx.store, job.id, log);
  }
}

/** The parent and its final text when an earlier attempt posted everything (the result, the file, the graph). */
function finishedEarlier(once: OncePoster): { parent: { channel: string; ts: string }; done: SlackMessage } | null {
  const { posts, parent, done } = once.recorded;
  const progress = posts?.progress?.ts ? { channel: posts.progress.channel, ts: posts.progress.ts } : parent;
  return progress && done ? { parent: progress, done } : null;
}

/**
 * The findings, the full report and the graph, each once: a retry of a job
 * whose worker died after the post uploads what is missing. Uploads carry no
 * metadata, so their flags are written right after Slack accepted them.
 */
async function postResult(slack: SlackPoster, once: OncePoster, inThread: { channel: string; thread_ts: string }, rendered: ReturnType<typeof renderDiagnosis>, report: DiagnosisReport, log: Log): Promise<void> {
  await once.post('result', { ...inThread, text: rendered.text, blocks: rendered.blocks });
  if (rendered.file) await once.upload('file', { ...inThread, ...rendered.file });
  // A graph that cannot be drawn or uploaded is logged and left out (postReportChart): done either way.
  await once.once('chart', async () => void (await postReportChart(slack, inThread, report, log)));
}

/** Where a diagnosis posts: its cluster, what it is called, the once-only poster and the thread of its progress message. */
interface DiagnosisThread {
  cluster: ClusterConfig;
  what: string;
  once: OncePoster;
  thread: { channel: string; ts: string };
}

/** `/kafka diagnose` (and `/kafka transactions`): a topic not on the cluster is answered to its requester alone; else the diagnosis runs in its thread. */
async function runDiagnoseJob(diagnoser: Diagnoser, payload: DiagnoseJob, ctx: JobContext): Promise<void> {
  const { slack, log, job } = ctx;
  try {
    const cluster = findCluster(ctx.config, payload.cluster);
    if (!cluster) throw new PermanentJobError(`cluster "${payload.cluster}" is not configured`);
    const what = payload.topic ? `${cluster.name} / ${payload.topic}` : cluster.name;
    // The topic against the metadata before anything is posted, probed or sampled: a name
    // that is not there is answered to the requester alone and costs the cluster nothing more.
    if (payload.topic && diagnoser.checkTopic) {
      const answer = await diagnoser.checkTopic({ cluster, topic: payload.topic, correlationId: job.correlationId });
      if (answer.status === 'missing') {
        log.info('topic not on the cluster; nothing diagnosed', { topic: payload.topic });
        const once = await oncePoster(ctx, job.id);
        await once.once('unknown-topic', () => answerRequester(slack, payload.origin, renderUnknownTopic(payload.topic!, cluster.name, answer.nearMisses, answer.reason), log));
        return;
      }
    }
    // A retried job (its worker died) edits what the first attempt posted instead of posting it again.
    const once = await oncePoster(ctx, job.id);
    const finished = finishedEarlier(once);
    if (finished) {
      log.info('result, file and graph already posted by an earlier attempt; finishing its message only');
      await slack.update({ channel: finished.parent.channel, ts: finished.parent.ts, ...finished.done });
      return;
    }
    const progressMessage = { ...where(payload.origin), ...renderProgress(what, null, payload.origin.userId) };
    const thread = await explainFailure(slack, payload.origin, log, () => once.post('progress', progressMessage));
    if (thread.earlier) await slack.update({ ...progressMessage, ts: thread.ts });
    await openIncident(ctx.store, { channel: thread.channel, threadTs: thread.ts, title: `Diagnosis of ${what}`, cluster: cluster.name, openedAt: new Date().toISOString(), origin: 'diagnosis' }, log);
    await diagnoseInThread(diagnoser, payload, ctx, { cluster, what, once, thread });
  } finally {
    await finishActivity(ctx.store, job.id, log);
  }
}

/** Diagnose, record the incident event, then post findings, file and graph in the thread and finish the progress message. */
async function diagnoseInThread(diagnoser: Diagnoser, payload: DiagnoseJob, ctx: JobContext, { cluster, what, once, thread }: DiagnosisThread): Promise<void> {
  const { slack, log, job } = ctx;
  const progress = progressUpdater((p) => slack.update({ channel: thread.channel, ts: thread.ts, ...renderProgress(what, p, payload.origin.userId) }), log);
  try {
    const remaining = ctx.remainingMs?.();
    const report = await diagnoser.diagnose({
      cluster,
      ...(payload.topic ? { topic: payload.topic } : {}),
      correlationId: job.correlationId,
      ...(payload.topic && diagnoser.checkTopic ? { topicChecked: true } : {}),
      lagHistory: stateLagHistory(ctx.store, cluster.name),
      clusterHistory: stateClusterHistory(ctx.store, cluster.name),
      onProgress: (p) => progress.report(p),
      // Leave time to post the results before the Lambda is stopped.
      ...(remaining !== undefined ? { deadlineMs: Math.max(5_000, remaining - 15_000) } : {}),
    });
    await progress.close();
    // `/kafka transactions`: the same diagnosis, only its transaction findings posted.
    if (payload.focus === 'transactions') report.findings = report.findings.filter((f) => (TRANSACTION_FINDING_KINDS as readonly string[]).includes(f.kind));
    log.info('diagnosis done', { findings: report.findings.length, partial: report.partial, durationMs: report.durationMs });
    const rendered = renderDiagnosis(report, { correlationId: job.correlationId, ...(payload.topic ? { topic: payload.topic } : {}) });
    const done = withTimelineButton(renderDone(report, payload.origin.userId));
    // In the timeline before it is in the thread (a Timeline click right after sees it).
    // Keyed by the job: a retry's diagnosis replaces the dead attempt's event instead of adding one.
    await recordIncidentEvent(
      ctx.store,
      { channel: thread.channel, threadTs: thread.ts },
      { type: 'diagnosis', at: report.startedAt, cluster: report.cluster, requestedBy: payload.origin.userId, durationMs: report.durationMs, partial: report.partial, ...loggedFindings(report.findings), changes: report.changes ?? [] },
      log,
      `${job.id}/diagnosis`,
    );
    const inThread = { channel: thread.channel, thread_ts: thread.ts };
    await postResult(slack, once, inThread, rendered, report, log);
    // Everything is in the thread: a retry from here on only makes this edit.
    await recordPosted(ctx.store, job.id, { done }, log);
    await slack.update({ channel: thread.channel, ts: thread.ts, ...done });
  } catch (err) {
    await progress.close();
    await slack
      .update({ channel: thread.channel, ts: thread.ts, ...renderFailure(`Diagnosis of ${what}`, errorMessage(err), job.correlationId) })
      .catch((e) => log.warn('could not report failure', { error: errorMessage(e) }));
    // Reported to the user; retrying a diagnosis that failed would only post twice.
    throw new PermanentJobError(errorMessage(err));
  }
}

/** The diagnosis feature's job kinds, for the worker's registry (lib/root/worker.ts). */
export function diagnoseJobs(deps: { diagnoser: Diagnoser }): JobHandler[] {
  const diagnose: JobHandler<DiagnoseJob> = {
    kind: DIAGNOSE_JOB_KINDS.diagnose,
    schema: diagnoseJobSchema,
    run: (payload, ctx: JobContext) => runDiagnoseJob(deps.diagnoser, payload, ctx),
  };
  const canRestart: JobHandler<CanRestartJob> = {
    kind: DIAGNOSE_JOB_KINDS.canRestart,
    schema: canRestartJobSchema,
    run: (payload, ctx: JobContext) =>
      answerInOneMessage(ctx, payload, `Restart check of broker ${payload.brokerId}`, async (cluster) => {
        const assessment = await deps.diagnoser.canRestart({ cluster, brokerId: payload.brokerId, correlationId: ctx.job.correlationId });
        ctx.log.info('can-restart assessed', { brokerId: payload.brokerId, verdict: assessment.verdict });
        return renderCanRestart(cluster.name, assessment, ctx.job.correlationId);
      }),
  };
  return [diagnose, canRestart];
}

// The worker side of `/kafka diagnose` and `/kafka can-restart`: post a
// progress message, run the diagnosis, edit the message as hosts answer,
// then post the findings in its thread.
import { findCluster, type ClusterConfig } from '../config/schema.ts';
import { renderFailure, type SlackMessage } from '../slack/blocks.ts';
import { renderCanRestart, renderDiagnosis, renderDone, renderProgress, renderUnknownTopic } from './render-slack.ts';
import type { SlackPoster } from '../slack/web.ts';
import { finishActivity } from '../state/activity.ts';
import { loggedFindings, openIncident, recordIncidentEvent } from '../state/incident-log.ts';
import { withTimelineButton } from '../slack/timeline-button.ts';
import { stateClusterHistory } from './cluster-history-store.ts';
import { postedByJob, recordPosted } from '../worker/posted.ts';
import type { DiagnoseProgress, Diagnoser } from './diagnoser.ts';
import type { SlackOrigin } from '../queue/job.ts';
import { DIAGNOSE_JOB_KINDS, canRestartJobSchema, diagnoseJobSchema, type CanRestartJob, type DiagnoseJob } from './kinds.ts';
import type { Log } from '../runtime/log.ts';
import { stateLagHistory } from './lag-history-store.ts';
import { postReportChart } from './metrics/post.ts';
import { TRANSACTION_FINDING_KINDS } from './detectors/transactions.ts';
import { errorMessage } from '../runtime/errors.ts';
import { PermanentJobError, type JobContext, type JobHandler } from '../worker/worker.ts';

/**
 * Posts where the request came from; if the bot may not post there (not in
 * the channel), says so through response_url instead of failing silently.
 */
async function postOrExplain(slack: SlackPoster, origin: SlackOrigin, message: SlackMessage, log: Log) {
  try {
    return await slack.post({ channel: origin.channelId, ...(origin.threadTs ? { thread_ts: origin.threadTs } : {}), ...message });
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
    let message: SlackMessage;
    try {
      message = await answer(cluster);
    } catch (err) {
      message = renderFailure(what, errorMessage(err), job.correlationId);
    }
    await postOrExplain(slack, payload.origin, message, log);
  } finally {
    await finishActivity(ctx.store, job.id, log);
  }
}

/** The diagnosis feature's job kinds, for the worker's registry (lib/root/worker.ts). */
export function diagnoseJobs(deps: { diagnoser: Diagnoser }): JobHandler[] {
  const diagnose: JobHandler<DiagnoseJob> = {
    kind: DIAGNOSE_JOB_KINDS.diagnose,
    schema: diagnoseJobSchema,
    async run(payload, ctx: JobContext) {
      const { slack, log, job } = ctx;
      try {
        const cluster = findCluster(ctx.config, payload.cluster);
        if (!cluster) throw new PermanentJobError(`cluster "${payload.cluster}" is not configured`);
        const what = payload.topic ? `${cluster.name} / ${payload.topic}` : cluster.name;
        // The topic against the metadata before anything is posted, probed or sampled: a name
        // that is not there is answered to the requester alone and costs the cluster nothing more.
        if (payload.topic && deps.diagnoser.checkTopic) {
          const answer = await deps.diagnoser.checkTopic({ cluster, topic: payload.topic, correlationId: job.correlationId });
          if (answer.status === 'missing') {
            log.info('topic not on the cluster; nothing diagnosed', { topic: payload.topic });
            await answerRequester(slack, payload.origin, renderUnknownTopic(payload.topic, cluster.name, answer.nearMisses, answer.reason), log);
            return;
          }
        }
        // A retried job (its worker died) edits what the first attempt posted instead of posting it again.
        const before = await postedByJob(ctx.store, job.id, log);
        if (before.parent && before.resultPosted) {
          log.info('result already posted by an earlier attempt; finishing its message only');
          if (before.done) await slack.update({ channel: before.parent.channel, ts: before.parent.ts, ...before.done });
          return;
        }
        let parent = before.parent;
        if (parent) await slack.update({ channel: parent.channel, ts: parent.ts, ...renderProgress(what, null, payload.origin.userId) });
        else {
          parent = await postOrExplain(slack, payload.origin, renderProgress(what, null, payload.origin.userId), log);
          await recordPosted(ctx.store, job.id, { parent }, log);
        }
        const thread = parent;
        await openIncident(ctx.store, { channel: thread.channel, threadTs: thread.ts, title: `Diagnosis of ${what}`, cluster: cluster.name, openedAt: new Date().toISOString(), origin: 'diagnosis' }, log);
        const progress = progressUpdater((p) => slack.update({ channel: thread.channel, ts: thread.ts, ...renderProgress(what, p, payload.origin.userId) }), log);
        try {
          const remaining = ctx.remainingMs?.();
          const report = await deps.diagnoser.diagnose({
            cluster,
            ...(payload.topic ? { topic: payload.topic } : {}),
            correlationId: job.correlationId,
            ...(payload.topic && deps.diagnoser.checkTopic ? { topicChecked: true } : {}),
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
          await recordIncidentEvent(
            ctx.store,
            { channel: thread.channel, threadTs: thread.ts },
            { type: 'diagnosis', at: report.startedAt, cluster: report.cluster, requestedBy: payload.origin.userId, durationMs: report.durationMs, partial: report.partial, ...loggedFindings(report.findings), changes: report.changes ?? [] },
            log,
          );
          await slack.post({ channel: thread.channel, thread_ts: thread.ts, text: rendered.text, blocks: rendered.blocks });
          await recordPosted(ctx.store, job.id, { resultPosted: true, done }, log);
          if (rendered.file) await slack.upload({ channel: thread.channel, thread_ts: thread.ts, ...rendered.file });
          await postReportChart(slack, { channel: thread.channel, thread_ts: thread.ts }, report, log);
          await slack.update({ channel: thread.channel, ts: thread.ts, ...done });
        } catch (err) {
          await progress.close();
          await slack
            .update({ channel: thread.channel, ts: thread.ts, ...renderFailure(`Diagnosis of ${what}`, errorMessage(err), job.correlationId) })
            .catch((e) => log.warn('could not report failure', { error: errorMessage(e) }));
          // Reported to the user; retrying a diagnosis that failed would only post twice.
          throw new PermanentJobError(errorMessage(err));
        }
      } finally {
        await finishActivity(ctx.store, job.id, log);
      }
    },
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

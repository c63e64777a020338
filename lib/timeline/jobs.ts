// The worker side of the timeline: build the incident's Markdown file and post
// it in the incident's own thread (files.uploadV2), with any graph the metrics
// side provides (`timelineAttachments`, lib/timeline/graph.ts from the
// composition root; a graph that cannot be drawn never holds the timeline back).
// Each upload once per job (lib/worker/post-once.ts): its file name is recorded
// before the upload and its flag after, so a retry (the worker died) uploads
// only what is missing, and finds by name a file the dead attempt had shared.
import type { ApprovalService } from '../approvals/service.ts';
import type { ApprovablePlan } from '../approvals/types.ts';
import { errorMessage } from '../runtime/errors.ts';
import { finishActivity } from '../state/activity.ts';
import type { FileUpload } from '../slack/web.ts';
import { PermanentJobError, type JobContext, type JobHandler } from '../worker/worker.ts';
import { oncePoster } from '../worker/post-once.ts';
import type { Timeline } from './build.ts';
import { exportLoaded, loadTimeline, UnknownIncidentError } from './load.ts';
import { TIMELINE_JOB_KIND, timelineFlightKey, timelineJobSchema, type TimelineJob } from './slack.ts';

/** Files to post with the timeline (the incident's metrics graph as a PNG), from what the timeline holds (its cluster, its span). */
export type TimelineAttachments = (timeline: Timeline) => Promise<Omit<FileUpload, 'channel' | 'thread_ts'>[]>;

export interface TimelineDeps {
  approvals?: ApprovalService<ApprovablePlan>;
  timelineAttachments?: TimelineAttachments;
}

export function timelineJobs(deps: TimelineDeps): JobHandler[] {
  const exportJob: JobHandler<TimelineJob> = {
    kind: TIMELINE_JOB_KIND,
    schema: timelineJobSchema,
    async run(payload, ctx: JobContext) {
      const { slack, log, store, job } = ctx;
      const tell = (text: string) =>
        payload.origin.responseUrl ? slack.respond(payload.origin.responseUrl, { response_type: 'ephemeral', text }).catch((e) => log.warn('could not answer the requester', { error: errorMessage(e) })) : Promise.resolve();
      try {
        const readRequest = deps.approvals ? (id: string) => deps.approvals!.get(id) : undefined;
        let timeline;
        try {
          timeline = await loadTimeline(store, readRequest, payload.incidentId);
        } catch (err) {
          if (err instanceof UnknownIncidentError) {
            await tell(`:grey_question: I have nothing recorded for that thread: ${errorMessage(err)}.`);
            throw new PermanentJobError(errorMessage(err));
          }
          throw err;
        }
        const incident = timeline.incident;
        const where = { channel: incident.channel, thread_ts: incident.threadTs };
        let extra: Omit<FileUpload, 'channel' | 'thread_ts'>[] = [];
        if (deps.timelineAttachments) {
          const attach = deps.timelineAttachments;
          extra = await Promise.resolve()
            .then(() => attach(timeline))
            .catch((err: unknown) => {
              log.warn('no graph for the timeline', { error: errorMessage(err) });
              return [];
            });
        }
        const exported = exportLoaded(timeline, { attachments: extra });
        const once = await oncePoster(ctx, job.id);
        await once.upload('timeline', { ...where, filename: exported.filename, title: exported.title, content: exported.markdown, initialComment: `Timeline requested by <@${payload.origin.userId}>: ${exported.timeline.entries.length} events.` });
        // The timeline is posted: a graph that fails to upload is logged, never a retry that posts the file twice.
        for (const [i, file] of extra.entries()) {
          await once.upload(`attachment-${i}`, { ...where, ...file }).catch((err: unknown) => log.warn('timeline graph could not be uploaded', { error: errorMessage(err) }));
        }
        log.info('timeline posted', { incidentId: payload.incidentId, entries: exported.timeline.entries.length, correlationId: job.correlationId });
      } finally {
        // The next request for this incident builds a fresh export.
        await store.remove(timelineFlightKey(payload.incidentId)).catch((err: unknown) => log.warn('could not clear the timeline in flight (its TTL does)', { error: errorMessage(err) }));
        await finishActivity(store, job.id, log);
      }
    },
  };
  return [exportJob];
}

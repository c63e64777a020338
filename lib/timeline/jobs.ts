// The worker side of the timeline: build the incident's Markdown file and post
// it in the incident's own thread (files.uploadV2), with any graph the metrics
// side provides (`attachmentsFor`, optional: a graph that cannot be drawn
// never holds the timeline back).
import type { ApprovalService } from '../approvals/service.ts';
import type { ApprovablePlan } from '../approvals/types.ts';
import { errorMessage } from '../runtime/errors.ts';
import { finishActivity } from '../state/activity.ts';
import type { IncidentMeta } from '../state/incident-log.ts';
import type { FileUpload } from '../slack/web.ts';
import { PermanentJobError, type JobContext, type JobHandler } from '../worker/worker.ts';
import { exportTimeline, UnknownIncidentError } from './load.ts';
import { TIMELINE_JOB_KIND, timelineJobSchema, type TimelineJob } from './slack.ts';

/** Files to post with the timeline (e.g. the incident's metrics graph as a PNG), for the thread they go to. */
export type TimelineAttachments = (incident: IncidentMeta) => Promise<Omit<FileUpload, 'channel' | 'thread_ts'>[]>;

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
        let exported;
        try {
          exported = await exportTimeline(store, readRequest, payload.incidentId);
        } catch (err) {
          if (err instanceof UnknownIncidentError) {
            await tell(`:grey_question: I have nothing recorded for that thread: ${errorMessage(err)}.`);
            throw new PermanentJobError(errorMessage(err));
          }
          throw err;
        }
        const incident = exported.timeline.incident;
        const where = { channel: incident.channel, thread_ts: incident.threadTs };
        let extra: Omit<FileUpload, 'channel' | 'thread_ts'>[] = [];
        if (deps.timelineAttachments) {
          extra = await deps.timelineAttachments(incident).catch((err: unknown) => {
            log.warn('no graph for the timeline', { error: errorMessage(err) });
            return [];
          });
        }
        if (extra.length) exported = await exportTimeline(store, readRequest, payload.incidentId, { attachments: extra });
        await slack.upload({ ...where, filename: exported.filename, title: exported.title, content: exported.markdown, initialComment: `Timeline requested by <@${payload.origin.userId}>: ${exported.timeline.entries.length} events.` });
        for (const file of extra) await slack.upload({ ...where, ...file });
        log.info('timeline posted', { incidentId: payload.incidentId, entries: exported.timeline.entries.length, correlationId: job.correlationId });
      } finally {
        await finishActivity(store, job.id, log);
      }
    },
  };
  return [exportJob];
}

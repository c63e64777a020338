// The timeline's I/O: the incident's thread and events from the state store,
// and each plan's request (its audit trail) from the approvals table. The
// Slack job and the CLI both export through here, so they print the same.
import type { ApprovablePlan, ApprovalRequest } from '../approvals/types.ts';
import { ResponderError, errorMessage } from '../runtime/errors.ts';
import { incidentEvents, incidentMeta } from '../state/incident-log.ts';
import type { StateStore } from '../state/state-store.ts';
import { buildTimeline, type PlanRecord, type Timeline } from './build.ts';
import { renderTimelineMarkdown, type TimelineAttachment } from './render-markdown.ts';

/** Reads one approval request (ApprovalService.get or ApprovalStore.get); absent when approvals are not configured. */
export type ReadRequest = (id: string) => Promise<ApprovalRequest<ApprovablePlan> | null>;

export class UnknownIncidentError extends ResponderError {
  readonly failure = 'fatal';
  override name = 'UnknownIncidentError';
}

export async function loadTimeline(store: StateStore, readRequest: ReadRequest | undefined, incidentId: string): Promise<Timeline> {
  const meta = await incidentMeta(store, incidentId);
  if (!meta) throw new UnknownIncidentError(`no incident thread ${incidentId} is recorded (timelines are kept 60 days)`);
  const events = await incidentEvents(store, incidentId);
  const ids = [...new Set(events.flatMap((e) => (e.type === 'plan' ? [e.requestId] : [])))];
  const plans: PlanRecord[] = await Promise.all(
    ids.map(async (requestId) => {
      if (!readRequest) return { requestId, request: null };
      try {
        return { requestId, request: await readRequest(requestId) };
      } catch (err) {
        // One unreadable plan must not lose the rest of the story; the entry says so.
        void errorMessage(err);
        return { requestId, request: null };
      }
    }),
  );
  return buildTimeline(meta, events, plans);
}

export interface ExportedTimeline {
  timeline: Timeline;
  filename: string;
  title: string;
  markdown: string;
}

export async function exportTimeline(
  store: StateStore,
  readRequest: ReadRequest | undefined,
  incidentId: string,
  opts: { now?: Date; attachments?: readonly TimelineAttachment[] } = {},
): Promise<ExportedTimeline> {
  return exportLoaded(await loadTimeline(store, readRequest, incidentId), opts);
}

/** The file of a timeline already loaded (the job reads it once, then asks for its graph). */
export function exportLoaded(timeline: Timeline, opts: { now?: Date; attachments?: readonly TimelineAttachment[] } = {}): ExportedTimeline {
  const now = opts.now ?? new Date();
  const slug = (timeline.incident.cluster ?? 'kafka').replace(/[^A-Za-z0-9_.-]/g, '-').slice(0, 40);
  return {
    timeline,
    filename: `timeline-${slug}-${now.toISOString().slice(0, 16).replace(/[:T]/g, '-')}.md`,
    title: `Timeline: ${timeline.incident.title}`.slice(0, 250),
    markdown: renderTimelineMarkdown(timeline, now.toISOString(), opts.attachments ?? []),
  };
}

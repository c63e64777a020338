// Approved operations → PagerDuty Change Events, through the outbox: the
// operations jobs show this feed each request after a decision and at a run's
// start and end (lib/operations/change-feed.ts); it queues the approval event
// once the request has its approvals, and the outcome event once it is
// closed. Each is queued once per request, however often it is shown.
import type { Config } from '../config/schema.ts';
import { FINAL_STATUSES } from '../approvals/types.ts';
import type { ChangeFeed } from '../operations/job-context.ts';
import { planMessageRef } from '../operations/plan-message.ts';
import { approvalChangeEvent, isApproved, outcomeChangeEvent, slackThreadUrl, type ChangeMoment } from './change-events.ts';
import { queueDelivery } from './deliveries.ts';

/** The feed when change events are configured (pagerduty.changeEvents), else none. */
export function pagerDutyChangeFeed(config: Config): ChangeFeed | undefined {
  const settings = config.pagerduty?.changeEvents;
  if (!settings?.enabled) return undefined;
  return {
    async saw(request, ctx) {
      if (!isApproved(request)) return;
      const closed = FINAL_STATUSES.has(request.status);
      const ref = await planMessageRef(ctx.store, request.id);
      const threadUrl = ref ? slackThreadUrl(ref.channel, ref.threadTs) : undefined;
      const change = { source: settings.source, ...(threadUrl ? { threadUrl } : {}) };
      const channel = ref?.channel ?? request.context?.channel ?? '';
      const queue = (moment: ChangeMoment, body: ReturnType<typeof approvalChangeEvent>) =>
        queueDelivery(ctx, `change:${request.id}:${moment}`, { target: 'change-event', body }, body.payload.summary, channel);
      // In this order: a run that closed before its start was seen still shows its approval first.
      await queue('approved', approvalChangeEvent(request, change));
      if (closed) await queue('outcome', outcomeChangeEvent(request, change));
    },
  };
}

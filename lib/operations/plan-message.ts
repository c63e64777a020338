// Where a request's plan message and thread are, and how the plan message is
// brought up to date (an edit in place: repeating it is harmless).
import type { ApprovalRequest } from '../approvals/types.ts';
import { errorMessage } from '../runtime/errors.ts';
import type { Log } from '../runtime/log.ts';
import type { SlackPoster } from '../slack/web.ts';
import type { StateStore } from '../state/state-store.ts';
import { renderPlanMessage } from './render-slack.ts';
import type { Plan } from './types.ts';

/** Where a request's plan message and thread are (written once the message is posted). */
export interface PlanMessageRef {
  channel: string;
  ts: string;
  threadTs: string;
}
export const MESSAGE_REF_TTL_SECONDS = 30 * 24 * 3600;
export const refKey = (requestId: string) => `ops-msg:${requestId}`;

export async function planMessageRef(store: StateStore, requestId: string): Promise<PlanMessageRef | null> {
  return (await store.get<PlanMessageRef>(refKey(requestId)))?.value ?? null;
}

/** Edits the plan message to show `request`; true when Slack took the edit (false: no message known, or Slack refused). */
export async function refreshPlanMessage(ctx: { slack: SlackPoster; log: Log }, request: ApprovalRequest<Plan>, ref: PlanMessageRef | null): Promise<boolean> {
  if (!ref) return false;
  return ctx.slack.update({ channel: ref.channel, ts: ref.ts, ...renderPlanMessage(request) }).then(
    () => true,
    (e) => {
      ctx.log.warn('could not update plan message', { error: errorMessage(e) });
      return false;
    },
  );
}

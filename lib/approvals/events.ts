// The audit events a transition appends, bounded: an event's message and data
// stay small whatever an actor typed or a step reported.
import type { ApprovalRequest, AuditEvent, AuditEventType } from './types.ts';

const MAX_EVENT_DATA_CHARS = 4_000;
const MAX_TEXT_CHARS = 1_000;

export function makeEvent(
  request: ApprovalRequest,
  seq: number,
  at: number,
  type: AuditEventType,
  actor: string,
  message: string,
  data?: Record<string, unknown>,
): AuditEvent {
  const event: AuditEvent = { requestId: request.id, seq, at, type, actor, message: clip(message) };
  if (data) event.data = boundData(data);
  return event;
}

function boundData(data: Record<string, unknown>): Record<string, unknown> {
  const json = JSON.stringify(data);
  return json.length <= MAX_EVENT_DATA_CHARS ? data : { truncated: true, preview: json.slice(0, MAX_EVENT_DATA_CHARS) };
}

export function clip(text: string): string {
  return text.length <= MAX_TEXT_CHARS ? text : `${text.slice(0, MAX_TEXT_CHARS - 1)}…`;
}

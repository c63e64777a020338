// What the approval service (service.ts) accepts from outside and answers:
// every id, user and text is checked here before anything touches the table,
// and every answer is plain data the Slack layer renders.
import * as z from 'zod';
import { SLACK_USER_ID } from './policy.ts';
import type { ApprovablePlan, ApprovalRequest, AuditEvent, RefusalCode } from './types.ts';

export const RequestId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'not a request id');
export const UserId = z.string().regex(SLACK_USER_ID, 'not a Slack user id');
export const UserIds = z.array(UserId).max(20).optional();
export const WorkerId = z.string().regex(/^[\w.:@/-]{1,128}$/, 'not a worker id');
export const LockKey = z.string().regex(/^[\w.:@/-]{1,128}$/, 'not a lock key');
export const ActionTs = z.string().regex(/^\d{1,12}\.\d{1,9}$/, 'not a Slack action_ts').optional();
export const Reason = z.string().max(2_000).optional();

export type ServiceResult<P extends ApprovablePlan = ApprovablePlan> =
  | {
      ok: true;
      request: ApprovalRequest<P>;
      event: AuditEvent;
      /** One line for the thread, e.g. "<@U1> approved (2 of 2): ready to execute". */
      message: string;
      /** True only for the one call that moved the request to APPROVED: enqueue execution then. */
      readyToExecute: boolean;
    }
  | {
      ok: false;
      code: RefusalCode;
      message: string;
      /** Current state when known, so the Slack layer can refresh the message. */
      request: ApprovalRequest<P> | null;
    };

export type InputRefusal = { ok: false; code: 'invalid-input'; message: string; request: null };

export function invalid(schema: z.ZodType, value: unknown): InputRefusal | null {
  const parsed = schema.safeParse(value);
  if (parsed.success) return null;
  return { ok: false, code: 'invalid-input', message: parsed.error.issues.map((i) => i.message).join('; '), request: null };
}

export function refused<P extends ApprovablePlan>(
  code: RefusalCode,
  message: string,
  request: ApprovalRequest<P> | null,
): ServiceResult<P> {
  return { ok: false, code, message, request };
}


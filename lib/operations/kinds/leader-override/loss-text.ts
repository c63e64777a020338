// What a leader override loses, in words: the lines the Slack plan message and
// the CLI show before anyone approves. Pure functions of the plan's figures.
// Plain text: callers escape it for their medium (group ids are user data).
// An unknown loss is always said to be unknown, with the lower bound that is
// known, never shown as 0.

import { andMore, formatBytes, formatCount } from '../../../runtime/format.ts';
import type { GroupBeyondEnd, LeaderCandidate, LossBasis, LossEstimate, LossUnit, Plan, UnseenHolder } from '../../types.ts';

/** How many names a line lists before "and N more". */
const MAX_NAMED = 10;

export function formatAmount(n: number, unit: LossUnit): string {
  return unit === 'bytes' ? formatBytes(n) : `${formatCount(n)} message${n === 1 ? '' : 's'}`;
}

/** "broker 1", "brokers 1 and 4", "brokers 1, 4 and 5". */
export function brokerList(ids: readonly number[]): string {
  if (ids.length === 1) return `broker ${ids[0]}`;
  return `brokers ${ids.slice(0, -1).join(', ')} and ${ids.at(-1)}`;
}

function endText(loss: LossEstimate, chosen: number): string {
  if (loss.end === null) return `broker ${chosen}'s end`;
  return loss.unit === 'bytes' ? `broker ${chosen}'s data (${formatBytes(loss.end)})` : `broker ${chosen}'s end (offset ${formatCount(loss.end)})`;
}

/** The figure a bound is measured against, as a clause: "group billing committed up to offset 850". */
function basisText(b: LossBasis): string {
  switch (b.kind) {
    case 'committed-offset':
      return `group ${b.groupId} committed up to offset ${formatCount(b.value)}`;
    case 'checkpointed-high-watermark':
      return `broker ${b.brokerId} checkpointed a high watermark of ${formatCount(b.value)}`;
    case 'replica-log-end':
      return `broker ${b.brokerId}'s log ends at offset ${formatCount(b.value)}`;
    case 'replica-size':
      return `broker ${b.brokerId} holds ${formatBytes(b.value)}`;
  }
}

/** Committed offsets and high watermarks only ever cover acknowledged writes; a replica's log end may go beyond them. */
const isAcknowledged = (b: LossBasis | null) => b?.kind === 'committed-offset' || b?.kind === 'checkpointed-high-watermark';

/** "the last in-sync replica, broker 1, could not be measured"; several kinds joined with "; ". */
export function unseenText(unseen: readonly UnseenHolder[]): string {
  const groups = new Map<string, UnseenHolder[]>();
  for (const u of unseen) groups.set(`${u.role}/${u.problem}`, [...(groups.get(`${u.role}/${u.problem}`) ?? []), u]);
  return [...groups.values()]
    .map((hs) => {
      const ids = hs.map((h) => h.brokerId);
      const many = ids.length > 1;
      const who =
        hs[0]!.role === 'last-leader'
          ? `the last leader, ${brokerList(ids)},`
          : hs[0]!.role === 'last-isr'
            ? `the last in-sync replica${many ? 's' : ''}, ${brokerList(ids)},`
            : `${brokerList(ids)}, ${many ? 'any of which' : 'which'} may have been the last in-sync replica (the ISR is empty),`;
      const what = hs[0]!.problem === 'unmeasured' ? 'could not be measured' : `${many ? 'hold' : 'holds'} less than was written (wiped or truncated)`;
      return `${who} ${what}`;
    })
    .join('; ');
}

/** One line, first thing the approvers read about loss. */
export function lossHeadline(loss: LossEstimate, chosen: number): string {
  const others = loss.unseen.filter((u) => u.brokerId !== chosen);
  if (loss.end === null || loss.atLeast === null) {
    return (
      `Loss: unknown — broker ${chosen}, the chosen replica, could not be measured: everything beyond its end is gone, however much that is` +
      (others.length ? `, and ${unseenText(others)}` : '')
    );
  }
  const bySize = loss.unit === 'bytes' ? ' (an estimate from replica sizes: without host access no log end offset can be read)' : '';
  if (loss.known) {
    if (loss.atLeast === 0) {
      return loss.unit === 'bytes'
        ? `Loss: none by size — no replica holds more than ${endText(loss, chosen)}${bySize}`
        : `Loss: none — no replica, checkpoint or consumer group goes beyond ${endText(loss, chosen)}`;
    }
    return `Loss: ≈${formatAmount(loss.atLeast, loss.unit)}${bySize} — beyond ${endText(loss, chosen)}: ${basisText(loss.basis!)}`;
  }
  const reasons = unseenText(loss.unseen);
  if (loss.atLeast === 0) {
    return `Loss: unknown — ${reasons}; nothing else that could be read goes beyond ${endText(loss, chosen)}, but whatever was acknowledged beyond it is gone`;
  }
  const what =
    loss.unit === 'bytes'
      ? formatBytes(loss.atLeast)
      : `${formatCount(loss.atLeast)} ${isAcknowledged(loss.basis) ? 'acknowledged ' : ''}message${loss.atLeast === 1 ? '' : 's'}`;
  const verb = loss.unit === 'messages' && loss.atLeast === 1 ? 'is' : 'are';
  return `Loss: unknown — at least ${what} beyond ${endText(loss, chosen)} ${verb} gone (${basisText(loss.basis!)})${bySize}; ${reasons}, so there may be more`;
}

/** Says plainly what an acknowledged write beyond the new end becomes. */
export function goneForGoodLine(loss: LossEstimate, chosen: number): string {
  const where = loss.unit === 'bytes' || loss.end === null ? `that broker ${chosen} lacks` : `beyond ${endText(loss, chosen)}`;
  return `Acknowledged writes ${where} are gone for good: their producers were told they were stored, and no consumer will read them.`;
}

/** Short form for the plan's impact summary. */
export function lossSummary(loss: LossEstimate): string {
  if (loss.atLeast === null) return 'loss unknown';
  if (!loss.known) return loss.atLeast > 0 ? `loss unknown (at least ${formatAmount(loss.atLeast, loss.unit)})` : 'loss unknown';
  if (loss.atLeast === 0) return loss.unit === 'bytes' ? 'no loss by replica size' : 'no loss measured';
  return `≈${formatAmount(loss.atLeast, loss.unit)} lost${loss.unit === 'bytes' ? ' (estimate by size)' : ''}`;
}

/** One replica's figure for the candidates list: "≈1,000 messages", "unknown, at least 150 messages", "unknown". */
export function candidateLossText(c: LeaderCandidate): string {
  if (!c.loss) return c.estimatedMessagesLost === null ? 'unknown' : `≈${formatAmount(c.estimatedMessagesLost, 'messages')}`;
  const { loss } = c;
  if (loss.atLeast === null) return 'unknown';
  if (loss.known) return loss.atLeast === 0 ? 'none' : `≈${formatAmount(loss.atLeast, loss.unit)}`;
  return loss.atLeast > 0 ? `unknown, at least ${formatAmount(loss.atLeast, loss.unit)}` : 'unknown';
}

function namedList<T>(items: readonly T[], name: (t: T) => string): string {
  return andMore(items.slice(0, MAX_NAMED).map(name), MAX_NAMED, items.length);
}

const PROTOCOL: Record<NonNullable<GroupBeyondEnd['groupType']>, string> = { classic: 'classic protocol', consumer: 'consumer protocol', unknown: 'protocol unknown' };

function groupText(g: GroupBeyondEnd): string {
  const members = g.members === null ? 'members unknown' : `${g.members} member${g.members === 1 ? '' : 's'}`;
  return `${g.groupId} (at ${formatCount(g.committedOffset)}; ${g.groupType ? `${PROTOCOL[g.groupType]}, ` : ''}${g.state}, ${members})`;
}

/**
 * What Kafka does with an admin commit into the groups it refuses now, per protocol (measured on
 * 4.4.0: UNKNOWN_MEMBER_ID for both), and when each becomes Empty so that a new plan can commit it.
 */
function refusalLines(groups: readonly GroupBeyondEnd[]): string[] {
  const refused = groups.filter((g) => g.adminCommit === 'refused-members');
  const lines: string[] = [];
  if (refused.some((g) => g.groupType === 'classic')) {
    lines.push(
      'Kafka refuses an admin offset commit (generation -1, no member id) into a classic group that is not Empty: UNKNOWN_MEMBER_ID. ' +
        'It is Empty once its consumers leave (closed), or session.timeout.ms after they die.',
    );
  }
  if (refused.some((g) => g.groupType === 'consumer')) {
    lines.push(
      'Kafka refuses an admin offset commit (member epoch -1, no member id) into a consumer-protocol group (group.protocol=consumer) while it has members: UNKNOWN_MEMBER_ID. ' +
        'It is Empty once its consumers leave (closed), or group.consumer.session.timeout.ms (45 s by default) after they die.',
    );
  }
  return lines;
}

const RESET_EFFECT =
  'will hit OFFSET_OUT_OF_RANGE and reset to what their auto.offset.reset says (earliest re-reads the whole partition, latest skips what arrives in between)';

/** What happens to consumer groups committed beyond the new end. */
export function consumerGroupLines(groups: readonly GroupBeyondEnd[], chosen: number, unread?: string): string[] {
  const lines: string[] = [];
  const certain = groups.filter((g) => g.certain);
  const maybe = groups.filter((g) => !g.certain);
  const fixed = certain.filter((g) => g.committedByPlan);
  const resetting = certain.filter((g) => !g.committedByPlan);
  if (fixed.length) {
    lines.push(`Consumer groups committed beyond broker ${chosen}'s end, without active members: the plan commits them at the new end — ${namedList(fixed, groupText)}.`);
  }
  if (resetting.length) {
    lines.push(
      `Consumer groups committed beyond broker ${chosen}'s end with active members (or of unknown state) ${RESET_EFFECT} — ${namedList(resetting, groupText)}. ` +
        'Stop them and plan again to have them committed at the new end.',
    );
    lines.push(...refusalLines(resetting));
  }
  if (maybe.length) {
    const idle = maybe.filter((g) => g.committedByPlan);
    const active = maybe.filter((g) => !g.committedByPlan);
    lines.push(
      `Broker ${chosen}'s end is unknown until the election, so these groups may be beyond it: ` +
        [
          idle.length ? `without active members, committed at the new end by the plan if so — ${namedList(idle, groupText)}` : '',
          active.length ? `with active members (or of unknown state), they ${RESET_EFFECT} if so — ${namedList(active, groupText)}` : '',
        ]
          .filter(Boolean)
          .join('; ') +
        '.',
    );
    // Whether or not they turn out beyond it, the plan cannot commit the live ones: say why, and when it could.
    lines.push(...refusalLines(active));
  }
  if (unread) lines.push(`Committed offsets could not all be read (${unread}): groups beyond the new end may be missing here, and the loss bound ignores them.`);
  else if (groups.length === 0) lines.push(`No consumer group has committed beyond broker ${chosen}'s end.`);
  return lines;
}

/** Every loss and consumer-group line for a leader-override plan; [] for other plans and for plans made before loss estimates. */
export function leaderOverrideLossLines(plan: Plan): string[] {
  const loss = plan.impact.loss;
  if (plan.kind !== 'leader-override' || !loss) return [];
  const chosen = plan.params.replica;
  return [lossHeadline(loss, chosen), goneForGoodLine(loss, chosen), ...consumerGroupLines(plan.impact.groupsBeyondEnd ?? [], chosen, plan.impact.groupsUnread)];
}

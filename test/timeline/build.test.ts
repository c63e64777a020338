import { describe, expect, it } from 'vitest';
import type { ApprovalRequest, AuditEvent } from '../../lib/approvals/types.ts';
import type { IncidentEvent, IncidentMeta, LoggedFinding } from '../../lib/state/incident-log.ts';
import { buildTimeline } from '../../lib/timeline/build.ts';
import { renderTimelineMarkdown } from '../../lib/timeline/render-markdown.ts';
import { parseIncidentArg } from '../../lib/timeline/slack.ts';
import { incidentIdOf } from '../../lib/state/incident-log.ts';

const T0 = Date.parse('2026-03-01T03:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const meta: IncidentMeta = { id: incidentIdOf('C0OPS', '1700000000.000101'), channel: 'C0OPS', threadTs: '1700000000.000101', title: 'Offline partitions on sandbox', cluster: 'sandbox', openedAt: at(0), origin: 'alert' };
const offline: LoggedFinding = { fingerprint: 'fp-offline-orders-0', kind: 'offline-partition', severity: 'critical', title: '1 partition offline: orders-0' };
const urp: LoggedFinding = { fingerprint: 'fp-urp', kind: 'under-replicated', severity: 'warning', title: '3 partitions under-replicated' };
const diagnosis = (s: number, findings: LoggedFinding[], extra: Partial<Extract<IncidentEvent, { type: 'diagnosis' }>> = {}): IncidentEvent => ({ type: 'diagnosis', at: at(s), cluster: 'sandbox', durationMs: 2100, partial: false, findings, changes: [], ...extra });
const alert = (s: number, status: 'firing' | 'resolved'): IncidentEvent => ({ type: 'alert', at: at(s), status, source: 'alertmanager', alertname: 'KafkaOfflinePartitions', title: 'Offline partitions on sandbox', cluster: 'sandbox', count: 1 });

function request(events: [number, AuditEvent['type'], string, string][]): ApprovalRequest {
  return {
    id: 'req1',
    status: 'SUCCEEDED',
    version: events.length,
    plan: { id: 'p1', kind: 'leader-override', title: 'Elect broker 3 leader of orders-0', fingerprint: 'f' },
    planDigest: 'd',
    requester: 'U0REQ',
    requiredApprovals: 2,
    createdAt: T0,
    expiresAt: T0 + 3600_000,
    approvals: [],
    events: events.map(([s, type, actor, message], i) => ({ requestId: 'req1', seq: i + 1, at: T0 + s * 1000, type, actor, message })),
  };
}

describe('the postmortem timeline (pure)', () => {
  it("marks the run's phases (re-checked, elected, writable, done) with their milliseconds after the last approval", () => {
    const ms = (n: number) => n / 1000;
    const req = {
      ...request([
        [0, 'requested', 'U0REQ', 'plan requested'],
        [60, 'approved', 'U0ALICE', 'approved (1 of 2)'],
        [120, 'approved', 'U0BOB', 'approved (2 of 2)'],
        [120 + ms(60), 'step', 'worker:1', 'step 0 check preconditions: ok'],
        [120 + ms(240), 'step', 'worker:1', 'step 3 verify-leaders: ok'],
        [120 + ms(310), 'step', 'worker:1', 'step 4 verify-writable: ok'],
        [120 + ms(900), 'succeeded', 'worker:1', 'broker 3 leads orders-0'],
      ]),
      outcome: { status: 'SUCCEEDED' as const, summary: 'broker 3 leads orders-0', at: T0 + 120_900 },
    };
    const phases = ['re-checked', 'elected', 'writable'];
    for (const [i, e] of req.events.filter((x) => x.type === 'step').entries()) e.data = { index: i, name: 'x', status: 'ok', phase: phases[i] };
    const md = renderTimelineMarkdown(buildTimeline(meta, [], [{ requestId: 'req1', request: req }]), at(1000));
    expect(md).toMatch(/Step: step 0 check preconditions: ok — \*\*re-checked\*\*, 60 ms after the last approval/);
    expect(md).toMatch(/verify-leaders: ok — \*\*elected\*\*, 240 ms after the last approval/);
    expect(md).toMatch(/verify-writable: ok — \*\*writable\*\*, 310 ms after the last approval/);
    expect(md).toMatch(/Operation SUCCEEDED: broker 3 leads orders-0 — \*\*done\*\*, 900 ms after the last approval/);
    expect(md.match(/after the last approval/g)).toHaveLength(4);
  });

  it('orders alerts, diagnoses with findings first seen / changed / cleared, changes and the audit trail by time', () => {
    const events: IncidentEvent[] = [
      // Recorded out of order on purpose: the list index returns newest first.
      alert(900, 'resolved'),
      diagnosis(600, [{ ...urp, severity: 'info', title: '1 partition under-replicated' }]),
      diagnosis(30, [offline, urp], { changes: [{ code: 'broker-started', broker: 1, at: at(-120) }] }),
      diagnosis(300, [urp], { requestedBy: 'U0ALICE', changes: [{ code: 'broker-started', broker: 1, at: at(-120) }, { code: 'leaders-changed', topic: 'orders', partitions: [{ partition: 0, from: -1, to: 3 }], count: 1, at: at(290), since: at(30) }] }),
      alert(0, 'firing'),
      { type: 'plan', at: at(60), requestId: 'req1', cluster: 'sandbox', kind: 'leader-override', title: 'Elect broker 3 leader of orders-0', requestedBy: 'U0REQ' },
    ];
    const req = request([
      [60, 'requested', 'U0REQ', 'plan requested'],
      [120, 'approved', 'U0ALICE', 'approved (1 of 2)'],
      [130, 'approved', 'U0BOB', 'approved (2 of 2): ready to execute'],
      [131, 'claimed', 'worker:1', 'execution started'],
      [140, 'step', 'worker:1', 'step 1 elect-leader: ok'],
      [150, 'succeeded', 'worker:1', 'broker 3 leads orders-0'],
    ]);
    const t = buildTimeline(meta, events, [{ requestId: 'req1', request: req }]);
    const summary = t.entries.map((e) => `${e.at.slice(11, 19)} ${e.code}${e.code === 'audit' ? `:${e.event.type}` : ''}`);
    expect(summary).toEqual([
      '02:58:00 cluster-change',
      '03:00:00 alert-firing',
      '03:00:30 diagnosis',
      '03:00:30 finding-first-seen',
      '03:00:30 finding-first-seen',
      '03:01:00 audit:requested',
      '03:02:00 audit:approved',
      '03:02:10 audit:approved',
      '03:02:11 audit:claimed',
      '03:02:20 audit:step',
      '03:02:30 audit:succeeded',
      '03:04:50 cluster-change',
      '03:05:00 diagnosis',
      '03:05:00 finding-cleared',
      '03:10:00 diagnosis',
      '03:10:00 finding-changed',
      '03:15:00 alert-resolved',
    ]);
    // Every audit event of the request appears, in its order, with its own time.
    const audit = t.entries.filter((e) => e.code === 'audit');
    expect(audit.map((e) => [e.event.seq, Date.parse(e.at)])).toEqual(req.events.map((e) => [e.seq, e.at]));
    expect(t.people).toEqual(['U0REQ', 'U0ALICE', 'U0BOB']);
    expect(t.clusters).toEqual(['sandbox']);
  });

  it('a partial diagnosis clears nothing; another cluster in the thread clears nothing of this one', () => {
    const t = buildTimeline(meta, [diagnosis(0, [offline]), diagnosis(10, [], { partial: true }), diagnosis(20, [], { cluster: 'other' }), diagnosis(30, [])], []);
    const cleared = t.entries.filter((e) => e.code === 'finding-cleared');
    expect(cleared.map((e) => e.at)).toEqual([at(30)]);
  });

  it('a plan whose request cannot be read is still listed', () => {
    const t = buildTimeline(meta, [{ type: 'plan', at: at(5), requestId: 'gone', cluster: 'sandbox', kind: 'leader-override', title: 'Elect', requestedBy: 'U0REQ' }], [{ requestId: 'gone', request: null }]);
    expect(t.entries.map((e) => e.code)).toEqual(['plan-unreadable']);
  });
});

describe('the timeline as Markdown', () => {
  it('one row per entry with its time, headed sections for people to fill, Slack ids, outside text escaped', () => {
    const t = buildTimeline(meta, [alert(0, 'firing'), diagnosis(30, [{ ...offline, title: 'orders-0 | offline *now*' }], { requestedBy: 'U0ALICE' })], []);
    const md = renderTimelineMarkdown(t, at(1000));
    expect(md).toMatch(/^# Postmortem: Offline partitions on sandbox$/m);
    for (const h of ['Summary', 'Impact', 'Timeline (UTC)', 'Root cause', 'Follow-ups']) expect(md).toMatch(new RegExp(`^## ${h.replace(/[()]/g, '\\$&')}$`, 'm'));
    expect(md).toMatch(/^\| 2026-03-01 03:00:00 \| Alert \*\*firing\*\*: Offline partitions on sandbox/m);
    expect(md).toMatch(/^\| 2026-03-01 03:00:30 \| Diagnosis of sandbox asked by U0ALICE: 1 finding/m);
    expect(md).toContain('orders-0 \\| offline \\*now\\*');
    expect(md).toMatch(/People involved:\*\* U0ALICE/);
    const rows = md.split('\n').filter((l) => /^\| \d{4}-/.test(l));
    expect(rows).toHaveLength(t.entries.length);
  });
});

describe('naming an incident', () => {
  const id = incidentIdOf('C0OPS', '1700000000.000101');
  it('by id, thread link, reply link (its thread_ts) or channel/ts; anything else is refused', () => {
    expect(parseIncidentArg(id)).toBe(id);
    expect(parseIncidentArg('https://acme.slack.com/archives/C0OPS/p1700000000000101')).toBe(id);
    expect(parseIncidentArg('<https://acme.slack.com/archives/C0OPS/p1700000009000202?thread_ts=1700000000.000101&cid=C0OPS>')).toBe(id);
    expect(parseIncidentArg('C0OPS/1700000000.000101')).toBe(id);
    expect(parseIncidentArg('orders')).toBeNull();
    expect(parseIncidentArg('https://example.com/x')).toBeNull();
  });
});

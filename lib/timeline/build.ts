// The postmortem timeline of one incident thread, as a pure function of what
// the bot recorded (lib/state/incident-log.ts) and the audit trail of each
// plan requested in the thread (lib/approvals): alerts firing and resolving,
// each diagnosis with the findings first seen, changed and cleared (by
// fingerprint), what changed in the cluster, every plan, approval, step and
// outcome. Returns entries with codes and data; render-markdown.ts has the words.
import type { ApprovablePlan, ApprovalRequest, AuditEvent } from '../approvals/types.ts';
import { parseChanges, type ClusterChange } from '../diagnose/what-changed.ts';
import { runTiming, type Phase } from '../approvals/run-timing.ts';
import type { IncidentEvent, IncidentMeta, LoggedFinding } from '../state/incident-log.ts';

export type TimelineEntry =
  | { code: 'alert-firing' | 'alert-resolved'; at: string; alertname: string; title: string; source: string; count: number }
  | { code: 'diagnosis'; at: string; cluster: string; requestedBy?: string; findings: number; partial: boolean; durationMs: number }
  | { code: 'finding-first-seen' | 'finding-cleared'; at: string; finding: LoggedFinding }
  | { code: 'finding-changed'; at: string; finding: LoggedFinding; before: LoggedFinding }
  | { code: 'cluster-change'; at: string; change: ClusterChange }
  /** A plan whose request could not be read: the thread still says it was asked for. */
  | { code: 'plan-unreadable'; at: string; requestId: string; title: string; requestedBy: string }
  | { code: 'audit'; at: string; requestId: string; planTitle: string; event: AuditEvent; phase?: { phase: Phase; afterMs: number } };

export interface PlanRecord {
  requestId: string;
  /** The stored request (its `events` are the audit trail), or null when it could not be read. */
  request: ApprovalRequest<ApprovablePlan> | null;
}

export interface Timeline {
  incident: IncidentMeta;
  entries: TimelineEntry[];
  /** Slack user ids who asked, approved, rejected or cancelled, in order of appearance. */
  people: string[];
  clusters: string[];
}

const iso = (ms: number) => new Date(ms).toISOString();
/** Ties keep the story's order: the diagnosis, then what it saw. */
const RANK: Record<TimelineEntry['code'], number> = {
  'alert-firing': 0,
  'alert-resolved': 0,
  'cluster-change': 1,
  diagnosis: 2,
  'finding-first-seen': 3,
  'finding-changed': 3,
  'finding-cleared': 3,
  'plan-unreadable': 4,
  audit: 4,
};

function diagnosisEntries(diagnoses: Extract<IncidentEvent, { type: 'diagnosis' }>[]): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  // Per cluster: a diagnosis of another cluster in the same thread clears nothing of this one.
  const open = new Map<string, Map<string, LoggedFinding>>();
  const changesSeen = new Set<string>();
  for (const d of diagnoses) {
    out.push({ code: 'diagnosis', at: d.at, cluster: d.cluster, ...(d.requestedBy ? { requestedBy: d.requestedBy } : {}), findings: d.findings.length + (d.findingsOmitted ?? 0), partial: d.partial, durationMs: d.durationMs });
    const before = open.get(d.cluster) ?? new Map<string, LoggedFinding>();
    const now = new Map(d.findings.map((f) => [f.fingerprint, f]));
    for (const f of d.findings) {
      const was = before.get(f.fingerprint);
      if (!was) out.push({ code: 'finding-first-seen', at: d.at, finding: f });
      else if (was.severity !== f.severity || was.title !== f.title) out.push({ code: 'finding-changed', at: d.at, finding: f, before: was });
    }
    // A partial diagnosis, or one whose findings were cut, cannot tell a finding is gone.
    if (!d.partial && !d.findingsOmitted) {
      for (const [fp, f] of before) if (!now.has(fp)) out.push({ code: 'finding-cleared', at: d.at, finding: f });
      open.set(d.cluster, now);
    } else open.set(d.cluster, new Map([...before, ...now]));
    for (const c of parseChanges(d.changes)) {
      // Each later diagnosis reports the last hour again: one entry per change.
      const key = JSON.stringify(c.code === 'reassignment-in-progress' ? { ...c, at: '' } : c);
      if (changesSeen.has(key)) continue;
      changesSeen.add(key);
      out.push({ code: 'cluster-change', at: c.at, change: c });
    }
  }
  return out;
}

export function buildTimeline(incident: IncidentMeta, events: readonly IncidentEvent[], plans: readonly PlanRecord[]): Timeline {
  const ordered = [...events].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  const entries: TimelineEntry[] = [];
  for (const e of ordered) {
    if (e.type === 'alert') entries.push({ code: e.status === 'firing' ? 'alert-firing' : 'alert-resolved', at: e.at, alertname: e.alertname, title: e.title, source: e.source, count: e.count });
  }
  entries.push(...diagnosisEntries(ordered.filter((e): e is Extract<IncidentEvent, { type: 'diagnosis' }> => e.type === 'diagnosis')));
  const planEvents = new Map(ordered.filter((e): e is Extract<IncidentEvent, { type: 'plan' }> => e.type === 'plan').map((e) => [e.requestId, e]));
  for (const p of plans) {
    const asked = planEvents.get(p.requestId);
    if (!p.request) {
      if (asked) entries.push({ code: 'plan-unreadable', at: asked.at, requestId: p.requestId, title: asked.title, requestedBy: asked.requestedBy });
      continue;
    }
    const request = p.request;
    // approval → re-checked → elected → writable → done, to the millisecond: the table's times are to the second.
    const phases = new Map((runTiming(request)?.phases ?? []).map((x) => [x.seq, { phase: x.phase, afterMs: x.afterMs }]));
    for (const event of [...request.events].sort((a, b) => a.seq - b.seq)) {
      const phase = phases.get(event.seq);
      entries.push({ code: 'audit', at: iso(event.at), requestId: request.id, planTitle: request.plan.title, event, ...(phase ? { phase } : {}) });
    }
  }
  const indexed = entries.map((entry, i) => ({ entry, i }));
  indexed.sort((a, b) => Date.parse(a.entry.at) - Date.parse(b.entry.at) || RANK[a.entry.code] - RANK[b.entry.code] || a.i - b.i);
  const sorted = indexed.map((x) => x.entry);

  const people: string[] = [];
  const person = (id: string | undefined) => {
    if (id && /^[UW][A-Z0-9]{2,}$/.test(id) && !people.includes(id)) people.push(id);
  };
  const clusters = new Set<string>(incident.cluster ? [incident.cluster] : []);
  for (const e of sorted) {
    if (e.code === 'diagnosis') {
      person(e.requestedBy);
      clusters.add(e.cluster);
    } else if (e.code === 'audit') person(e.event.actor);
    else if (e.code === 'plan-unreadable') person(e.requestedBy);
  }
  return { incident, entries: sorted, people, clusters: [...clusters] };
}

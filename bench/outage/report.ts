// The table: per operation and phase, the median and every round, ours beside
// Kafka's tool, the run's own phases (from its summary) beside the client's
// observations, and the ratio ours/Kafka's of the medians of "leader seen".
import type { Operation, Sample } from './rounds.ts';

/** The phases the run's summary is expected to carry (ms from the second approval). */
export const RUN_PHASES = ['re-checked', 'elected', 'writable', 'done'];

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const ms = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '?' : `${Math.round(x)}`);

function row(label: string, values: (number | undefined)[]): string {
  const seen = values.filter((v): v is number => v !== undefined);
  const med = seen.length ? median(seen) : undefined;
  const missing = seen.length < values.length ? ` (${values.length - seen.length} not seen)` : '';
  return `    ${label.padEnd(34)} median ${ms(med).padStart(6)} ms   [${values.map(ms).join(', ')}]${missing}`;
}

export function medianOf(samples: Sample[], figure: string): number | undefined {
  const seen = samples.map((s) => s.figures[figure]).filter((v): v is number => v !== undefined);
  return seen.length ? median(seen) : undefined;
}

export interface OperationResult {
  op: Operation;
  ours: Sample[];
  kafka: Sample[];
}

export function report(results: OperationResult[], header: string[]): string {
  const out = [...header, ''];
  for (const { op, ours, kafka } of results) {
    out.push(`${op.name}: ${ours.length} rounds ours${op.kafka ? `, ${kafka.length} Kafka's tool` : ''}`);
    out.push('  ours (t0 = second Approve sent):');
    for (const figure of Object.keys(ours[0]?.figures ?? {})) out.push(row(figure, ours.map((s) => s.figures[figure])));
    const extra = [...new Set(ours.flatMap((s) => [...(s.phases?.keys() ?? [])]))].filter((p) => !RUN_PHASES.includes(p));
    for (const phase of [...RUN_PHASES, ...extra]) out.push(row(`run's own: ${phase}`, ours.map((s) => s.phases?.get(phase))));
    out.push(row('metadata poll interval achieved', ours.map((s) => s.pollMs)));
    if (op.kafka) {
      out.push("  Kafka's kafka-leader-election.sh (t0 = spawn):");
      for (const figure of Object.keys(kafka[0]?.figures ?? {})) out.push(row(figure, kafka.map((s) => s.figures[figure])));
      out.push(row('metadata poll interval achieved', kafka.map((s) => s.pollMs)));
      out.push(`    leader elected, per round: ours ${ours.map((s) => s.leader ?? '?').join(', ')}; Kafka's tool ${kafka.map((s) => s.leader ?? '?').join(', ')}`);
      const a = medianOf(ours, 'leader seen');
      const b = medianOf(kafka, 'leader seen');
      out.push(`  ratio ours/Kafka's, leader seen (median/median): ${a !== undefined && b ? (a / b).toFixed(2) : '?'}  (${ms(a)} ms / ${ms(b)} ms)`);
      const wa = medianOf(ours, 'first acks=all write');
      const wb = medianOf(kafka, 'first acks=all write');
      if (wa !== undefined || wb !== undefined) out.push(`  ratio ours/Kafka's, first acks=all write (median/median): ${wa !== undefined && wb ? (wa / wb).toFixed(2) : '?'}  (${ms(wa)} ms / ${ms(wb)} ms)`);
    }
    const notes = [...ours.map((s, i) => [`ours round ${i + 1}`, s.note] as const), ...kafka.map((s, i) => [`Kafka round ${i + 1}`, s.note] as const)].filter(([, n]) => n);
    for (const [who, note] of notes) out.push(`  note, ${who}: ${note}`);
    out.push('');
  }
  return out.join('\n');
}

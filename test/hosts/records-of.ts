// A probe document written back as the records probe.sh prints, for tests
// that start from a document (the inverse of lib/hosts/probe-records.ts).
import type { RawProbeOutput } from '../../lib/hosts/probe-schema.ts';

const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');

export function recordsOf(d: RawProbeOutput, opts: { end?: boolean } = {}): string {
  const out: string[] = [];
  const r = (category: string, key: string | number, value: unknown) => out.push(`${category}\t${key}\t${esc(value === null || value === undefined ? '' : String(value))}`);
  r('probe', 'version', d.probeVersion);
  r('host', 'hostname', d.hostname);
  r('host', 'brokerId', d.brokerId);
  r('host', 'collectedAt', d.collectedAt);
  r('host', 'durationMs', d.probeDurationMs);
  r('host', 'kafkaVersion', d.kafkaVersion);
  if (d.process.running) r('process', 'pid', d.process.pid);
  r('process', 'startedAt', d.process.startedAt);
  r('process', 'configPath', d.process.configPath);
  r('process', 'logsDir', d.process.logsDir);
  d.logDirs.forEach((dir, i) => {
    for (const [k, v] of Object.entries(dir)) {
      if (k === 'partitionDirsWithoutSegments') for (const name of v as string[]) r('noSegments', i, name);
      else r('dir', `${i}.${k}`, v);
    }
  });
  for (const p of d.consumerOffsets) {
    r('offsets', p.partition, `${Math.max(0, d.logDirs.findIndex((x) => x.path === p.logDir))} ${p.segments} ${p.bytes ?? '-'}`);
    if (p.lastLoadStart !== null) r('loadStart', p.partition, p.lastLoadStart);
    if (p.lastLoadFinish !== null) r('loadFinish', p.partition, p.lastLoadFinish);
  }
  for (const f of d.logs.files) r('logs', 'file', f);
  r('logs', 'bytesRead', d.logs.bytesRead);
  for (const [c, lines] of Object.entries(d.logs)) if (Array.isArray(lines) && c !== 'files') for (const l of lines as string[]) r('log', c, l);
  for (const [k, v] of Object.entries(d.limits)) r('limits', k, v);
  if (d.systemd) {
    const s = d.systemd;
    r('systemd', 'unit', s.unit);
    r('systemd', 'ActiveState', s.activeState);
    r('systemd', 'TimeoutStopUSec', s.timeoutStopUSec);
    r('systemd', 'NRestarts', s.nRestarts);
    r('systemd', 'ExecMainStatus', s.execMainStatus);
    r('systemd', 'ExecMainCode', s.execMainCode);
    (s.journalTail ?? []).forEach((l, i) => r('journal', i, l));
  }
  for (const w of d.warnings) r('warning', '-', w);
  if (opts.end !== false) r('end', 'left-out', 0);
  return out.join('\n') + '\n';
}

// The graph into the thread, after the findings: drawn from the report's
// series and uploaded through files.uploadV2. A graph that cannot be drawn or
// uploaded is logged and left out; the findings are already posted.
import type { Log } from '../../runtime/log.ts';
import { errorMessage } from '../../runtime/errors.ts';
import type { SlackPoster } from '../../slack/web.ts';
import type { DiagnosisReport } from '../types.ts';
import { reportChart } from './index.ts';

/**
 * `markAtMs`: the alert this thread is about. A shared diagnosis (lib/diagnose/single-flight.ts)
 * may have been started by another request; the mark is this thread's own.
 */
export async function postReportChart(slack: SlackPoster, where: { channel: string; thread_ts: string }, report: DiagnosisReport, log: Log, markAtMs?: number): Promise<boolean> {
  if (!report.metrics) return false;
  const started = performance.now();
  const marked = markAtMs === undefined ? report : { ...report, metrics: { ...report.metrics, markAtMs } };
  const chart = reportChart(marked, (message) => log.warn('metrics graph could not be drawn', { error: message }));
  if (!chart) return false;
  try {
    await slack.upload({ ...where, filename: chart.filename, title: chart.title, content: chart.png });
    log.info('metrics graph posted', { bytes: chart.png.length, panels: report.metrics.chart, ms: Math.round(performance.now() - started) });
    return true;
  } catch (err) {
    log.warn('metrics graph could not be uploaded', { error: errorMessage(err) });
    return false;
  }
}

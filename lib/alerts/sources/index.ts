// ALERT_SOURCES: every way an alert reaches the bot, one file each in this
// folder and one line here. serve's routes (lib/local/server.ts), the deployed
// alerts function's dispatch (lib/root/deployed-alerts.ts), serverless.yml's
// routes and secrets and the docs' table (scripts/alert-sources.ts, checked by
// test/alerts/sources-table.test.ts) follow this list.
import { alertmanagerSource } from './alertmanager.ts';
import { cloudwatchSource } from './cloudwatch.ts';
import { grafanaSource } from './grafana.ts';
import type { AlertSourceDef } from './types.ts';

export const ALERT_SOURCES: readonly AlertSourceDef[] = [
  alertmanagerSource,
  cloudwatchSource,
  grafanaSource,
];

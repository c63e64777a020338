// Lambdas: the alert webhooks (one route per source of ALERT_SOURCES,
// dispatched by path) and CloudWatch alarms through SNS. The wiring:
// lib/root/deployed-alerts.ts.
export { alertmanager, http, sns } from '../lib/root/deployed-alerts.ts';

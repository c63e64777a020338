// Lambdas: Alertmanager webhooks (HTTP API, bearer token) and CloudWatch alarms
// through SNS. The wiring: lib/root/deployed-alerts.ts.
export { alertmanager, sns } from '../lib/root/deployed-alerts.ts';

// Lambdas: the job worker (SQS), the operations sweep and the scheduled audit
// (EventBridge). The wiring: lib/root/deployed-worker.ts.
export { auditSchedule, handler, sweep } from '../lib/root/deployed-worker.ts';

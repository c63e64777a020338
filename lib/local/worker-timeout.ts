// The deployed worker's `timeout` (serverless.yml), so that `serve` gives each
// job the same time limit Lambda does. test/deploy/serverless.test.ts checks
// that this number and the template agree.
export const DEPLOYED_WORKER_TIMEOUT_SECONDS = 180;

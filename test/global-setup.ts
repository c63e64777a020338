// One real Kafka sandbox per test run, in its own folder and ports so that a
// developer's own sandbox is never touched. Tests find it through the
// environment (KR_SANDBOX_HOME, KR_SANDBOX_PORT_BASE, KAFKA_BOOTSTRAP_SERVERS, KAFKA_BIN).
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Sandbox } from '../sandbox/cluster.ts';
import { lineName, sandboxSettings } from '../sandbox/layout.ts';
import { buildCli } from '../scripts/build-cli.mjs';

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  // Integration tests run bin/kafka-responder.js, i.e. the bundle: build it from the code under test
  // (also without a sandbox: serve's start-up and the packed tarball are tested without one).
  await buildCli({ quiet: true });
  if (process.env.KR_SKIP_SANDBOX === '1') return undefined;
  process.env.KR_SANDBOX_HOME ??= join(tmpdir(), 'kafka-responder-test-sandbox');
  process.env.KR_SANDBOX_PORT_BASE ??= '29090';
  const sandbox = new Sandbox(sandboxSettings(), (m) => console.log(`[sandbox] ${m}`));
  const t0 = Date.now();
  await sandbox.up();
  console.log(`[sandbox] ${lineName(sandbox.settings)} up for tests in ${((Date.now() - t0) / 1000).toFixed(1)} s at ${sandbox.settings.home}`);
  process.env.KAFKA_BOOTSTRAP_SERVERS = sandbox.bootstrapServers;
  process.env.KAFKA_BIN = sandbox.binDir;
  return async () => {
    if (process.env.KR_KEEP_SANDBOX === '1') return;
    await sandbox.down({ purge: true });
  };
}

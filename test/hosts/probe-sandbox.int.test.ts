// The probe as records against the legacy JSON probe on the real sandbox's
// broker hosts (test/global-setup.ts brings the sandbox up): the same document
// and the same findings, host by host (see probe-equivalence.ts).

import { describe, expect, it } from 'vitest';
import { takeSnapshot } from '../../lib/kafka/snapshot.ts';
import { resolveClusterTarget } from '../../lib/diagnose/cli-support.ts';
import { sandboxTarget } from '../../lib/cli/sandbox-target.ts';
import { compareProbes, expectEquivalent } from './probe-equivalence.ts';

const ready = Boolean(process.env.KAFKA_BOOTSTRAP_SERVERS && process.env.KR_SANDBOX_HOME && !process.env.KR_SKIP_SANDBOX);

describe.skipIf(!ready)('probe records on the sandbox', { timeout: 120_000 }, () => {
  it('give every broker host the document and findings the JSON probe gave', async () => {
    // The CLI's no-flag default: the sandbox (lib/cli).
    const target = await resolveClusterTarget({}, process.env, sandboxTarget);
    expect(target.hostTargets.length).toBeGreaterThanOrEqual(3);
    const snapshot = await takeSnapshot(target.connection, { timeoutMs: 15_000 });
    for (const host of target.hostTargets) {
      // The two probes read a live host at about the same moment; after a long suite a broker
      // may still be loading or logging as they run: a second look settles what moved between them.
      let c = await compareProbes(host, snapshot);
      if (JSON.stringify(c.recordFindings.map((f) => f.fingerprint)) !== JSON.stringify(c.legacyFindings.map((f) => f.fingerprint))) c = await compareProbes(host, snapshot);
      // After a long suite the broker logs have grown past what the JSON probe could print whole: then only the findings are compared (expectEquivalent).
      expect((c.records.logs as { bytesRead: number }).bytesRead, host.address).toBeGreaterThan(0);
      expectEquivalent(c);
    }
  });
});

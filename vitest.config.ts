import { accessSync, constants, statSync, statfsSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// Unit and integration, told apart by file name alone, so a new file is classified the
// moment it is added (the unit files are split further by ISOLATED below):
//   **/*.int.test.ts       integration: needs the real Kafka sandbox (hasSandbox(),
//                          testSandbox(), KAFKA_BOOTSTRAP_SERVERS, KR_SANDBOX_HOME, KAFKA_BIN,
//                          the sandbox CLI). One sandbox per run (test/global-setup.ts),
//                          files one after another: the cluster is the shared resource.
//   **/*.test.ts           unit (under test/, or beside the code it tests in lib/): everything else. No sandbox, files in parallel.
// A file that has even one test needing the cluster is an integration file.
//
//   npm run test:unit          seconds, no Java (projects unit and unit-isolated)
//   npm run test:integration   starts the sandbox (KR_SKIP_SANDBOX=1: its tests skip)
//   npx vitest run             both, unit first (sequence.groupOrder)
const INTEGRATION = '{test,lib}/**/*.int.test.ts';

// Unit tests write thousands of small files (fake broker hosts, scratch dirs, probe
// fixtures). On a disk under load 3,000 partition dirs take 11 s to make and 4 s to
// remove; in memory, 0.1 s. So their temporary files (os.tmpdir(), and mktemp in the
// scripts they run) go to /dev/shm where the machine has it, unless TMPDIR is set.
// A test whose files must be on a disk (a broker's log dir on tmpfs is itself a
// finding) uses diskTmpdir() of test/helpers/scratch.ts: KR_DISK_TMPDIR, the usual one.
function memoryTmpdir(): Record<string, string> {
  if (process.env.TMPDIR) return {};
  try {
    if (!statSync('/dev/shm').isDirectory()) return {};
    accessSync('/dev/shm', constants.W_OK);
    // A container's default /dev/shm is 64 MB: too small for the suite's files, so the disk then.
    const free = statfsSync('/dev/shm');
    if (free.bavail * free.bsize < 2 ** 30) return {};
    return { TMPDIR: '/dev/shm', KR_DISK_TMPDIR: tmpdir() };
  } catch {
    return {};
  }
}

const UNIT_FILES = ['test/**/*.test.ts', 'lib/**/*.test.ts'];

// Most unit files are run without isolation (project unit): the files a
// worker runs share one module graph, so each module is evaluated once per
// worker instead of once per file (import was half the suite's CPU). vitest
// still restores spies (vi.spyOn) between files and re-runs the setup files
// for each. These files change what other files would see, so each gets a
// fresh module graph (project unit-isolated):
const ISOLATED = [
  'test/diagnose/toy-registration.test.ts', // vi.mock of the checks table
  'test/cli/zod-one-shot.test.ts', // vi.resetModules, zod's config on globalThis
  'test/operations/slack.test.ts', // replaces Date.now while its modules load
  'test/deploy/secrets.test.ts', // replaces process.env; Powertools' parameter cache and an SSM mock
  'test/hosts/ssm-executor.test.ts', // an SSM client mock never restored
  'test/hosts/ssm-stop-timeout.test.ts', // the same
  'test/slack/signature-count.test.ts', // patches node:crypto's createHmac
];

const UNIT = {
  exclude: [...configDefaults.exclude, INTEGRATION],
  // Vitest's default is one worker fewer than the cores: a single worker on CI's 2 cores.
  // Many unit files wait on child processes, sockets, timers and dynalite, so one worker
  // more than the cores: while one waits, the cores still have two files to run.
  maxWorkers: Math.max(2, availableParallelism()) + 1,
  env: memoryTmpdir(),
  sequence: { groupOrder: 0 },
};

/**
 * Vitest's own order puts project 'unit' before 'unit-isolated' (by name), so
 * the isolated files (operations/slack.test.ts among them) ran last, on one
 * worker while the other idled. Here, within each groupOrder, isolated files
 * go first and the shared-module files after them, each part longest first
 * as Vitest orders it: a worker keeps its shared modules only while the next
 * file is a shared-module one too, so the two kinds are not interleaved.
 */
class IsolatedFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => f.project.config.sequence.groupOrder * 2 + (f.project.config.isolate ? 0 : 1);
    const position = new Map(sorted.map((f, i) => [f, i]));
    return [...sorted].sort((a, b) => rank(a) - rank(b) || position.get(a)! - position.get(b)!);
  }
}

export default defineConfig({
  test: {
    sequence: { sequencer: IsolatedFirst },
    testTimeout: 120_000,
    hookTimeout: 600_000,
    // Each test file removes its scratch directories (test/helpers/scratch.ts).
    setupFiles: ['test/helpers/scratch-cleanup.ts'],
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          ...UNIT,
          name: 'unit-isolated',
          include: ISOLATED,
        },
      },
      {
        extends: true,
        test: {
          ...UNIT,
          name: 'unit',
          include: UNIT_FILES,
          exclude: [...configDefaults.exclude, INTEGRATION, ...ISOLATED],
          // One module graph per worker: lib/ and its dependencies (the AWS SDK,
          // kafkajs, Bolt, dynalite, zod) are loaded once per worker, not once per file.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: [INTEGRATION],
          fileParallelism: false,
          globalSetup: ['test/global-setup.ts'],
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});

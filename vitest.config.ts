import { accessSync, constants, statSync, statfsSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

// Two projects, told apart by file name alone, so a new file is classified the
// moment it is added:
//   **/*.int.test.ts       integration: needs the real Kafka sandbox (hasSandbox(),
//                          testSandbox(), KAFKA_BOOTSTRAP_SERVERS, KR_SANDBOX_HOME, KAFKA_BIN,
//                          the sandbox CLI). One sandbox per run (test/global-setup.ts),
//                          files one after another: the cluster is the shared resource.
//   **/*.test.ts           unit (under test/, or beside the code it tests in lib/): everything else. No sandbox, files in parallel.
// A file that has even one test needing the cluster is an integration file.
//
//   npm run test:unit          seconds, no Java
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

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 600_000,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', 'lib/**/*.test.ts'],
          exclude: [...configDefaults.exclude, INTEGRATION],
          // Vitest's default is one worker fewer than the cores: a single worker on CI's 2 cores.
          // Many unit files wait on child processes, sockets and dynalite, so use every core.
          maxWorkers: Math.max(2, availableParallelism()),
          env: memoryTmpdir(),
          sequence: { groupOrder: 0 },
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

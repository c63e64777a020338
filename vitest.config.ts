import { availableParallelism } from 'node:os';
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

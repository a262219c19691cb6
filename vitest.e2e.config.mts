import { defineConfig } from 'vitest/config';
import { SummaryReporter } from './test/e2e/harness/summaryReporter.mts';

/**
 * The end-to-end suite: one code-server and one fake model server for all files (global setup), files
 * run one after another in a single worker because they share that VS Code, with timeouts sized for a
 * real browser on a busy two-core machine.
 */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.test.ts'],
    globalSetup: ['test/e2e/globalSetup.ts'],
    testTimeout: 120_000,
    // .ci/run tries a failed test once more (a busy CI machine can lose a click); the summary names those tests.
    retry: Number(process.env.ARBOR_E2E_RETRY ?? 0),
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    isolate: false,
    sequence: { shuffle: false },
    reporters: ['default', new SummaryReporter()],
  },
});

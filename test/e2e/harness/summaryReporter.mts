import type { Reporter, TestModule } from 'vitest/node';

/**
 * Ends the e2e run with one plain line, "e2e: N passed, N failed, N skipped", that CI logs can be searched
 * for; when failed tests are tried again (`ARBOR_E2E_RETRY`), the tests that passed only on a later try are
 * named under it, so a flaky test is seen rather than hidden.
 */
export class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const flaky: string[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') {
          passed++;
          if (test.diagnostic()?.flaky) flaky.push(`${module.moduleId.split('/').pop()} > ${test.fullName}`);
        } else if (state === 'failed') failed++;
        else skipped++;
      }
      if (module.state() === 'failed' && module.children.size === 0) failed++;
    }
    console.log(`\ne2e: ${passed} passed, ${failed} failed, ${skipped} skipped${flaky.length ? ` (${flaky.length} passed only when tried again)` : ''}`);
    for (const name of flaky) console.log(`e2e: passed when tried again: ${name}`);
  }
}

import type { Reporter, TestModule } from 'vitest/node';

/** Ends the e2e run with one plain line, "e2e: N passed, N failed, N skipped", that CI logs can be searched for. */
export class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (module.state() === 'failed' && module.children.size === 0) failed++;
    }
    console.log(`\ne2e: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  }
}

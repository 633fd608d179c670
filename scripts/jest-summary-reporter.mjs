// Prints the plain closing line CI reads ("N passed, N failed"), after Jest's own summary.
// A suite that fails outside a test (at load, in a hook) may count no failed test, and a suite whose server is not
// configured counts only skipped tests: the suites' counts say both, so the line never reads greener than the run.
export default class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skippedTests = results.numPendingTests + results.numTodoTests;
    process.stdout.write(
      `\ntests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skippedTests} skipped;` +
        ` suites: ${results.numPassedTestSuites} passed, ${results.numFailedTestSuites} failed` +
        ` (${results.numRuntimeErrorTestSuites} of them by an error outside any test), ${results.numPendingTestSuites} skipped\n`,
    );
  }
}

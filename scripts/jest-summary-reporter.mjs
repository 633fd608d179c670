// Prints the plain closing line CI reads ("N passed, N failed"), after Jest's own summary.
export default class SummaryReporter {
  onRunComplete(_contexts, results) {
    process.stdout.write(`\ntests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests} skipped\n`);
  }
}

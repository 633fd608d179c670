/** The error a call throws; fails the test when it does not throw, so assertions cannot be skipped. */
export const catchError = (call: () => unknown): unknown => {
  try {
    call();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
};

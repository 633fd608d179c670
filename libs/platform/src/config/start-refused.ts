/** A start refused for a reason an operator can act on (a setting it cannot use, a lock, a foreign secret): printed as its one line, exit code 1 (runMain), no stack trace. */
export class StartRefused extends Error {}

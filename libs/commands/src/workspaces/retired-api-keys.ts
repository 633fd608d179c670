/**
 * Where a regenerated-away key (its public part) is retired, so that every API process refuses it
 * from then on, before the read models' change feed empties their key caches. The composition root
 * provides the API's rate limiter (libs/http), whose script every authenticated request runs.
 */
export interface RetiredApiKeys {
  retire(apiKeyId: string, key: string): Promise<void>;
}

/** Injection token of the RetiredApiKeys. */
export const RETIRED_API_KEYS = Symbol('RETIRED_API_KEYS');

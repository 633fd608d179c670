import { ApiError } from '#http';

/** What a refused body answers: status, code and message, as the error filter sends them. */
export const refusalOf = async (promise: Promise<unknown>): Promise<{ status: number; code: string; message: string }> => {
  const error = await promise.then(() => null, (caught: unknown) => caught);
  if (!(error instanceof ApiError)) throw new Error(`expected a refusal, got ${JSON.stringify(error)}`);
  return { status: error.status, code: error.code, message: error.message };
};

export const refused = (message: string) => ({ status: 422, code: 'validation_failed', message });

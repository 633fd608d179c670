import { toErrorResponse } from '#http';

/** What a refusal answers: status, code and message, as the error filter sends them (an ApiError or a domain error). */
export const refusalOf = async (promise: Promise<unknown>): Promise<{ status: number; code: string; message: string }> => {
  const error = await promise.then(() => null, (caught: unknown) => caught);
  const { status, body } = toErrorResponse(error);
  if (status === 500) throw new Error(`expected a refusal, got ${error instanceof Error ? error.message : JSON.stringify(error)}`);
  return { status, code: body.error.code, message: body.error.message };
};

export const refused = (message: string) => ({ status: 422, code: 'validation_failed', message });

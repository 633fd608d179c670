import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** Whether an Authorization header carries `Bearer <token>`, compared in constant time. */
export const bearerMatcher = (token: string): ((header: string | undefined) => boolean) => {
  const expected = digest(token);
  return (header) => {
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    return Boolean(match?.[1]) && timingSafeEqual(digest(match?.[1] ?? ''), expected);
  };
};

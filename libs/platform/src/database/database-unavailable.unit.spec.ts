import { isDatabaseConnectionError } from './database-unavailable.js';

describe('isDatabaseConnectionError', () => {
  it('knows what node-postgres reports while the server cannot be reached or dropped the connection', () => {
    const unreachable = [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      new AggregateError([Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' })], ''),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Client has encountered a connection error and is not queryable'),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      Object.assign(new Error('connection failure'), { code: '08006' }),
      Object.assign(new Error('no host of a:1,b:2/db accepts writes now'), { code: '08001' }),
      Object.assign(new Error('cannot execute INSERT in a read-only transaction'), { code: '25006' }),
      new Error('wrapped', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) }),
    ];
    for (const error of unreachable) expect(isDatabaseConnectionError(error)).toBe(true);
  });

  it('leaves every other error, and what is not an error, to be reported', () => {
    const others = [
      Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }),
      Object.assign(new Error('could not serialize access'), { code: '40001' }),
      Object.assign(new Error('password authentication failed for user "x"'), { code: '28P01' }),
      Object.assign(new Error('database "nope" does not exist'), { code: '3D000' }),
      new TypeError('x is undefined'), 'ECONNREFUSED', { code: 'ECONNREFUSED' }, null,
    ];
    for (const error of others) expect(isDatabaseConnectionError(error)).toBe(false);
  });
});

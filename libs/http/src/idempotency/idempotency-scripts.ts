import { LuaScript } from '../redis/lua-script.js';

/*
 * One hash per (workspace, key): `state` (in_progress | completed), `fingerprint`, `mode`, and for
 * a completed record `status` and `body`. Each script reads and writes in one atomic step, so two
 * requests racing on a fresh key cannot both start.
 */

/** ARGV: fingerprint, mode, lock seconds. */
export const BEGIN = new LuaScript(`
local record = redis.call('HMGET', KEYS[1], 'state', 'fingerprint', 'mode', 'status', 'body')
local state = record[1]
if not state then
  redis.call('HSET', KEYS[1], 'state', 'in_progress', 'fingerprint', ARGV[1], 'mode', ARGV[2])
  redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
  return {'started'}
end
if record[2] ~= ARGV[1] or record[3] ~= ARGV[2] then
  return {'reused'}
end
if state == 'completed' then
  return {'replay', record[4], record[5]}
end
return {'in_progress', redis.call('PTTL', KEYS[1])}
`);

/*
 * ARGV: fingerprint, mode, status, body, ttl seconds. Writes only over nothing (the lock expired)
 * or over the caller's own marker: a completed record is never replaced, and a marker left by a
 * different request after our lock expired is not ours to overwrite.
 */
export const COMPLETE = new LuaScript(`
local record = redis.call('HMGET', KEYS[1], 'state', 'fingerprint', 'mode')
if record[1] then
  if record[1] ~= 'in_progress' or record[2] ~= ARGV[1] or record[3] ~= ARGV[2] then
    return 0
  end
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'state', 'completed', 'fingerprint', ARGV[1], 'mode', ARGV[2], 'status', ARGV[3], 'body', ARGV[4])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[5]))
return 1
`);

/*
 * ARGV: fingerprint and mode, or nothing. Only an in-progress marker is removed, and when the
 * request is named only its own, so a late abandon cannot free a key another request now holds.
 */
export const ABANDON = new LuaScript(`
local record = redis.call('HMGET', KEYS[1], 'state', 'fingerprint', 'mode')
if record[1] ~= 'in_progress' then return 0 end
if ARGV[1] and (record[2] ~= ARGV[1] or record[3] ~= ARGV[2]) then return 0 end
return redis.call('DEL', KEYS[1])
`);

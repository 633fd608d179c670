import { LuaScript } from '../redis/lua-script.js';

/*
 * One hash per (workspace, key): `state` (in_progress | completed), `fingerprint`, `mode`, `started`
 * (Redis time in ms), and once completed `status` and `body`. Each script is atomic, so two requests
 * racing on a fresh key cannot both start. KEYS[2], the workspace's running average duration (ms), is
 * what Retry-After expects a request in progress to take. Both keys carry the workspace's hash tag.
 */

const NOW_MS = `local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)`;

/** KEYS: record, duration average. ARGV: fingerprint, mode, lock seconds. */
export const BEGIN = new LuaScript(`
${NOW_MS}
local record = redis.call('HMGET', KEYS[1], 'state', 'fingerprint', 'mode', 'status', 'body', 'started')
local state = record[1]
if not state then
  redis.call('HSET', KEYS[1], 'state', 'in_progress', 'fingerprint', ARGV[1], 'mode', ARGV[2], 'started', now)
  redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
  return {'started'}
end
if record[2] ~= ARGV[1] or record[3] ~= ARGV[2] then
  return {'reused'}
end
if state == 'completed' then
  return {'replay', record[4], record[5]}
end
local elapsed = record[6] and (now - tonumber(record[6])) or -1
return {'in_progress', redis.call('PTTL', KEYS[1]), elapsed, tonumber(redis.call('GET', KEYS[2]) or '-1')}
`);

/*
 * KEYS: record, duration average. ARGV: fingerprint, mode, status, body, ttl seconds. Writes only over
 * nothing (the lock expired) or the caller's own marker: never over a completed record or another's marker.
 */
export const COMPLETE = new LuaScript(`
${NOW_MS}
local record = redis.call('HMGET', KEYS[1], 'state', 'fingerprint', 'mode', 'started')
if record[1] then
  if record[1] ~= 'in_progress' or record[2] ~= ARGV[1] or record[3] ~= ARGV[2] then
    return 0
  end
end
if record[4] then
  local took = now - tonumber(record[4])
  local average = tonumber(redis.call('GET', KEYS[2]) or tostring(took))
  redis.call('SET', KEYS[2], math.floor(average * 0.8 + took * 0.2), 'EX', 86400)
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'state', 'completed', 'fingerprint', ARGV[1], 'mode', ARGV[2], 'status', ARGV[3], 'body', ARGV[4])
-- When the request began (Redis's clock), kept for the erasure of a deleted person: a record begun after the deletion is not theirs.
if record[4] then redis.call('HSET', KEYS[1], 'started', record[4]) end
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[5]))
return 1
`);

/** Deletes a completed record, only if it is still this request's (same fingerprint and mode). */
export const FORGET = new LuaScript(`
local record = redis.call('HMGET', KEYS[1], 'fingerprint', 'mode')
if record[1] ~= ARGV[1] or record[2] ~= ARGV[2] then return 0 end
return redis.call('DEL', KEYS[1])
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

/**
 * Lua scripts of the Redis store. Each runs atomically on the server, so any number of
 * gateway processes sharing one Redis see one exact window per key.
 *
 * Clock: the scripts read the Redis server's TIME unless the caller passes `now`, so
 * instances with skewed clocks still agree on one timeline. (Redis ≥ 5 replicates script
 * effects, so a non-deterministic TIME before a write is allowed; `replicate_commands()` opts
 * older servers into the same mode.)
 */

/**
 * KEYS[1] = window ZSET (score = hit time in ms, member unique per hit)
 * ARGV = limit, windowMs, now ('' = server TIME), member
 * Returns {allowed 0|1, used, now, anchor (-1 if none)}; see HitObservation.
 */
export const HIT_SCRIPT = `
if redis.replicate_commands then redis.replicate_commands() end
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local used = redis.call('ZCARD', key)
local allowed = 0
if used < limit then
  redis.call('ZADD', key, now, ARGV[4])
  redis.call('PEXPIRE', key, window)
  used = used + 1
  allowed = 1
end
local anchor = -1
if used > 0 then
  local idx = 0
  if allowed == 0 then idx = used - math.max(limit, 1) end
  anchor = tonumber(redis.call('ZRANGE', key, idx, idx, 'WITHSCORES')[2])
end
return {allowed, used, now, anchor}
`;

/**
 * KEYS[1] = lease ZSET (score = expiry in ms, member = lease id)
 * ARGV = max, ttlMs, leaseId
 * Returns {acquired 0|1, remaining}.
 */
export const ACQUIRE_SCRIPT = `
if redis.replicate_commands then redis.replicate_commands() end
local key = KEYS[1]
local max = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
local held = redis.call('ZCARD', key)
if held >= max then return {0, 0} end
redis.call('ZADD', key, now + ttl, ARGV[3])
if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
return {1, max - held - 1}
`;

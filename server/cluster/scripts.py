"""The Lua scripts of `server.cluster.membership`, one atomic step each in Redis (see that module).

Each script's comment gives its KEYS and ARGV and what it returns. Key names are built from the
prefix inside some scripts, which is fine on one Redis server (not Redis Cluster).
"""

from __future__ import annotations

_ALIVE = """
local function alive(prefix, id)
  local slash = string.find(id, '/', 1, true)
  if not slash then return false end
  local held = redis.call('GET', prefix .. 'process:' .. string.sub(id, 1, slash - 1))
  return held == string.sub(id, slash + 1)
end
"""

#: Saves of several rooms, each on its own (`server.cluster.save_batch`): one call, one answer each.
#: KEYS: room set, public, then per save: room, followers, fences. ARGV: ttl, channel head,
#: process id, priority ms, process name, then per save: seq, state, code, notice head, summary,
#: version, parent, deadline ms, move, logged. Returns a list with, per save, -1 when saved, else
#: the stored seq, ABSENT (no such room), BUSY (another process has the next turn), FENCED or
#: LATE (see `Cluster.save`).
#: A save writes the room's `state` (and `base`, its seq), or, `logged` ('1'), only the move as
#: the field `m:<seq>` (the room is `state` and the moves `m:<base+1>`..`m:<seq>` made again:
#: `server.rooms.notes.with_moves`); writing a state drops the moves before it. The notice carries the
#: move when there is one, else the state.
#: A process refused for another's change becomes the room's `next` writer for `priority` ms
#: (unless one already is): the others are refused (BUSY) until it has saved, so no process is
#: starved by one that keeps changing the room. `saved:<NAME>` holds the version process NAME
#: stored last, which `FENCE` reads.
SAVE = """
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ttl, head, id, priority, name = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5]
local function save(room, followers, fences, seq, state, code, notice, summary, version, parent,
                    deadline, move, logged)
  if now > tonumber(deadline) then return -5 end
  if redis.call('SISMEMBER', fences, version) == 1 then return -4 end
  local held = redis.call('HMGET', room, 'seq', 'version', 'next', 'next_until', 'base')
  local waiting = held[3] and tonumber(held[4]) > now
  if held[1] then
    if waiting and held[3] ~= id then return -3 end
    if (held[2] or 'none') ~= parent then
      if not waiting then
        redis.call('HSET', room, 'next', id, 'next_until', now + priority)
      end
      return tonumber(held[1])
    end
  elseif parent ~= 'none' then
    return -2
  end
  if held[3] then redis.call('HDEL', room, 'next', 'next_until') end
  if logged == '1' then
    if not held[5] then redis.call('HSET', room, 'base', held[1]) end
    redis.call('HSET', room, 'seq', seq, 'version', version, 'saved:' .. name, version,
      'm:' .. seq, move)
  else
    if held[1] then
      for logged_seq = tonumber(held[5] or held[1]) + 1, tonumber(held[1]) do
        redis.call('HDEL', room, 'm:' .. logged_seq)
      end
    end
    redis.call('HSET', room, 'seq', seq, 'state', state, 'base', seq, 'version', version,
      'saved:' .. name, version)
  end
  redis.call('EXPIRE', room, ttl)
  redis.call('SADD', KEYS[1], code)
  if summary == '' then
    redis.call('HDEL', KEYS[2], code)
  else
    redis.call('HSET', KEYS[2], code, summary)
  end
  local body = move
  if body == '' then body = state end
  for _, follower in ipairs(redis.call('SMEMBERS', followers)) do
    if follower ~= name then redis.call('PUBLISH', head .. follower, notice .. body) end
  end
  return -1
end
local answers = {}
for i = 0, (#KEYS - 2) / 3 - 1 do
  local k, a = 2 + 3 * i, 5 + 10 * i
  answers[i + 1] = save(KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], ARGV[a + 1], ARGV[a + 2],
    ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6], ARGV[a + 7], ARGV[a + 8], ARGV[a + 9],
    ARGV[a + 10])
end
return answers
"""

#: KEYS: room, fences. ARGV: process name, ttl, versions... Makes sure none of this process's
#: unanswered saves of the room (their versions) can be stored from now on, and tells which
#: of them was: [stored seq (-1: no room), stored version, the version this process stored last].
FENCE = """
for i = 3, #ARGV do redis.call('SADD', KEYS[2], ARGV[i]) end
redis.call('EXPIRE', KEYS[2], ARGV[2])
local held = redis.call('HMGET', KEYS[1], 'seq', 'version', 'saved:' .. ARGV[1])
return cjson.encode({tonumber(held[1] or -1), held[2] or 'none', held[3] or 'none'})
"""

#: KEYS: room. ARGV: process id. Gives up the room's next turn, if this process has it.
YIELD = """
if redis.call('HGET', KEYS[1], 'next') == ARGV[1] then
  redis.call('HDEL', KEYS[1], 'next', 'next_until')
end
return 1
"""

#: KEYS: room, room set. ARGV: seq, state, version, ttl, code. Writes a room Redis lost (or
#: holds older) back; returns -1, or the stored seq when Redis holds as new or newer.
RESTORE = """
local held = redis.call('HMGET', KEYS[1], 'seq', 'base')
if held[1] and tonumber(held[1]) >= tonumber(ARGV[1]) then return tonumber(held[1]) end
if held[1] then
  for logged = tonumber(held[2] or held[1]) + 1, tonumber(held[1]) do
    redis.call('HDEL', KEYS[1], 'm:' .. logged)
  end
end
redis.call('HSET', KEYS[1], 'seq', ARGV[1], 'state', ARGV[2], 'base', ARGV[1], 'version', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('SADD', KEYS[2], ARGV[5])
return -1
"""

#: KEYS: room, room set, public, keeper, kept, followers. ARGV: version, code, channel head,
#: process name. 1 if deleted (the followers are told).
DELETE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  if (redis.call('HGET', KEYS[1], 'version') or 'none') ~= ARGV[1] then return 0 end
end
for _, name in ipairs(redis.call('SMEMBERS', KEYS[6])) do
  if name ~= ARGV[4] then redis.call('PUBLISH', ARGV[3] .. name, ARGV[2] .. ' gone') end
end
redis.call('DEL', KEYS[1], KEYS[4], KEYS[6])
redis.call('SREM', KEYS[2], ARGV[2])
redis.call('HDEL', KEYS[3], ARGV[2])
redis.call('SREM', KEYS[5], ARGV[2])
return 1
"""

#: KEYS: room, keeper, kept, followers. ARGV: id, code, ttl, name. 1 if the code was free and is
#: now ours (kept and followed).
CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[3])
redis.call('SADD', KEYS[3], ARGV[2])
redis.call('SADD', KEYS[4], ARGV[4])
redis.call('EXPIRE', KEYS[4], ARGV[3])
return 1
"""

#: ARGV: prefix, name, id, ttl, held, codes... For each code: [code, 1 if we keep it now, stored
#: seq (-1: no room), stored version]. Takes rooms with no keeper or a dead one, and notes this
#: process among the followers of the rooms it takes (of every one if `held` is 1: the codes are
#: rooms held in memory). A code whose room expired is dropped from the set of rooms.
CLAIM = (
    _ALIVE
    + """
local prefix, name, me, ttl, all = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5] == '1'
local out = {}
for i = 6, #ARGV do
  local code = ARGV[i]
  local held = redis.call('HMGET', prefix .. 'room:' .. code, 'seq', 'version')
  local mine = 0
  if not held[1] then
    redis.call('SREM', prefix .. 'rooms', code)
  else
    local key = prefix .. 'keeper:' .. code
    local keeper = redis.call('GET', key)
    if keeper == me then
      mine = 1
    elseif not keeper or not alive(prefix, keeper) then
      if keeper then
        local slash = string.find(keeper, '/', 1, true)
        if slash then
          redis.call('SREM', prefix .. 'kept:' .. string.sub(keeper, 1, slash - 1), code)
        end
      end
      mine = 1
    end
    if mine == 1 then
      redis.call('SET', key, me, 'EX', ttl)
      redis.call('SADD', prefix .. 'kept:' .. name, code)
    end
    if all or mine == 1 then
      local followers = prefix .. 'followers:' .. code
      redis.call('SADD', followers, name)
      redis.call('EXPIRE', followers, ttl)
    end
  end
  out[#out + 1] = {code, mine, tonumber(held[1] or -1), held[2] or 'none'}
end
if #out == 0 then return '[]' end
return cjson.encode(out)
"""
)

#: ARGV: prefix, name, id, ttl. Takes the rooms of processes whose lease expired; their codes.
ORPHANS = """
local prefix, name, me, ttl = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local out = {}
for _, other in ipairs(redis.call('SMEMBERS', prefix .. 'processes')) do
  if other ~= name and redis.call('EXISTS', prefix .. 'process:' .. other) == 0 then
    local kept = prefix .. 'kept:' .. other
    for _, code in ipairs(redis.call('SMEMBERS', kept)) do
      local key = prefix .. 'keeper:' .. code
      local keeper = redis.call('GET', key)
      local theirs = not keeper or string.sub(keeper, 1, #other + 1) == other .. '/'
      if theirs and redis.call('EXISTS', prefix .. 'room:' .. code) == 1 then
        redis.call('SET', key, me, 'EX', ttl)
        redis.call('SADD', prefix .. 'kept:' .. name, code)
        out[#out + 1] = code
      end
    end
    redis.call('DEL', kept)
    redis.call('SREM', prefix .. 'processes', other)
  end
end
if #out == 0 then return '[]' end
return cjson.encode(out)
"""

#: ARGV: prefix, ids... Returns the ids whose process runs that incarnation now.
ALIVE = (
    _ALIVE
    + """
local out = {}
for i = 2, #ARGV do
  if alive(ARGV[1], ARGV[i]) then out[#out + 1] = ARGV[i] end
end
if #out == 0 then return '[]' end
return cjson.encode(out)
"""
)

#: KEYS: process, processes. ARGV: incarnation, lease ms, name. 1: renewed; 0: it had lapsed (or
#: first beat); -1: another incarnation held the name (a restart, or two processes, one name).
BEAT = """
local held = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('SADD', KEYS[2], ARGV[3])
if held == ARGV[1] then return 1 end
if held then return -1 end
return 0
"""

#: KEYS: process. ARGV: incarnation. Ends the lease at once (a clean stop).
LEAVE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""

#: ARGV: prefix, cursor, count. Drops from the set of rooms up to `count` codes whose room
#: expired; returns the next cursor ("0": the set was gone through).
PRUNE = """
local prefix = ARGV[1]
local found = redis.call('SSCAN', prefix .. 'rooms', ARGV[2], 'COUNT', ARGV[3])
for _, code in ipairs(found[2]) do
  if redis.call('EXISTS', prefix .. 'room:' .. code) == 0 then
    redis.call('SREM', prefix .. 'rooms', code)
  end
end
return found[1]
"""

#: ARGV: prefix. The summaries of public rooms waiting with a free seat, as one JSON array.
PUBLIC = """
local prefix = ARGV[1]
local out = {}
local all = redis.call('HGETALL', prefix .. 'public')
for i = 1, #all, 2 do
  if redis.call('EXISTS', prefix .. 'room:' .. all[i]) == 1 then
    out[#out + 1] = all[i + 1]
  else
    redis.call('HDEL', prefix .. 'public', all[i])
  end
end
return '[' .. table.concat(out, ',') .. ']'
"""

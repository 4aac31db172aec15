"""The Lua scripts of `server.storage.archive_redis`: each one atomic step in Redis.

Every script takes the key prefix as ARGV[1] and builds its key names from it (one Redis server,
not Redis Cluster, as `server.cluster.scripts`). Keys (P = the prefix, "allfives:"):

- `P pkeys` hash key-hash -> player id; `P pnames` hash name fold -> player id;
- `P player:<id>` hash name, fold, created; `P pkeys:<id>` sorted set of its key hashes by time;
- `P link:<CODE>` a link code's player id, expiring; `P plinks:<id>` its live codes by time;
- `P recover` hash recovery-code hash -> player id (the player's hash also in `player:<id>`,
  field `recover`);
- `P rating:<ladder>` hash player id -> JSON {mu, sigma, games, wins, v};
  `P ladder:<ladder>` sorted set player id by mu - 3 sigma;
- `P game:<id>` an archived game's JSON, expiring after the retention;
- `P pgames:<id>` / `P ppublic:<id>` a player's games (all / public rooms') by finish time;
- `P stats:<id>` hash games, wins, public_games, public_wins; `P hist:<id>` its last rating points.
"""

from __future__ import annotations

#: ARGV: prefix, key hash, fold, name, new id, now, address, burst, per second. The key's player,
#: or a new one with this name, charged to the address's budget of new players
#: (`P claims:<address>` hash tokens, at) in the same step: JSON [status, id, name], status
#: "known" (free), "taken" (free; id and name empty), "limited" (nothing made; id and name
#: empty) or "new" (one token).
CLAIM_WITHIN = """
local p = ARGV[1]
local id = redis.call('HGET', p .. 'pkeys', ARGV[2])
if id then
  return cjson.encode({'known', id, redis.call('HGET', p .. 'player:' .. id, 'name')})
end
local bucket = p .. 'claims:' .. ARGV[7]
local burst, rate, now = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[6])
local tokens = tonumber(redis.call('HGET', bucket, 'tokens') or ARGV[8])
local at = tonumber(redis.call('HGET', bucket, 'at') or ARGV[6])
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
if tokens < 1 then return cjson.encode({'limited', '', ''}) end
if redis.call('HEXISTS', p .. 'pnames', ARGV[3]) == 1 then return cjson.encode({'taken', '', ''}) end
redis.call('HSET', bucket, 'tokens', tostring(tokens - 1), 'at', ARGV[6])
redis.call('EXPIRE', bucket, math.ceil(burst / rate) + 60)
id = ARGV[5]
redis.call('HSET', p .. 'pnames', ARGV[3], id)
redis.call('HSET', p .. 'player:' .. id, 'name', ARGV[4], 'fold', ARGV[3], 'created', ARGV[6])
redis.call('HSET', p .. 'pkeys', ARGV[2], id)
redis.call('ZADD', p .. 'pkeys:' .. id, ARGV[6], ARGV[2])
return cjson.encode({'new', id, ARGV[4]})
"""

#: ARGV: prefix, player id, code, seconds, most codes, now. Keeps a link code; 0 if the code is
#: taken already. The player's oldest codes past the most are dropped.
ADD_LINK = """
local p = ARGV[1]
local code_key = p .. 'link:' .. ARGV[3]
if redis.call('SET', code_key, ARGV[2], 'EX', ARGV[4], 'NX') == false then return 0 end
local mine = p .. 'plinks:' .. ARGV[2]
redis.call('ZADD', mine, ARGV[6], ARGV[3])
redis.call('ZREMRANGEBYSCORE', mine, '-inf', tonumber(ARGV[6]) - tonumber(ARGV[4]))
local extra = redis.call('ZCARD', mine) - tonumber(ARGV[5])
if extra > 0 then
  for _, old in ipairs(redis.call('ZRANGE', mine, 0, extra - 1)) do
    redis.call('DEL', p .. 'link:' .. old)
    redis.call('ZREM', mine, old)
  end
end
redis.call('EXPIRE', mine, ARGV[4])
return 1
"""

#: The end of USE_LINK and USE_RECOVERY: the key ARGV[3] joins player `id` (leaving any other
#: it had) at ARGV[4]; the player's oldest keys past ARGV[5] are dropped; JSON [id, name].
_ADD_KEY = """
local before = redis.call('HGET', p .. 'pkeys', ARGV[3])
if before and before ~= id then redis.call('ZREM', p .. 'pkeys:' .. before, ARGV[3]) end
redis.call('HSET', p .. 'pkeys', ARGV[3], id)
local mine = p .. 'pkeys:' .. id
redis.call('ZADD', mine, ARGV[4], ARGV[3])
local extra = redis.call('ZCARD', mine) - tonumber(ARGV[5])
if extra > 0 then
  for _, old in ipairs(redis.call('ZRANGE', mine, 0, extra - 1)) do
    redis.call('HDEL', p .. 'pkeys', old)
    redis.call('ZREM', mine, old)
  end
end
return cjson.encode({id, redis.call('HGET', p .. 'player:' .. id, 'name')})
"""

#: ARGV: prefix, code, key hash, now, most keys. Spends a code: the key joins its player (and
#: leaves any other); the player's oldest keys past the most are dropped. JSON [id, name], or
#: an empty string for an unknown, used or expired code.
USE_LINK = (
    """
local p = ARGV[1]
local code_key = p .. 'link:' .. ARGV[2]
local id = redis.call('GET', code_key)
if not id then return '' end
redis.call('DEL', code_key)
redis.call('ZREM', p .. 'plinks:' .. id, ARGV[2])
"""
    + _ADD_KEY
)

#: ARGV: prefix, recovery hash, key hash, now, most keys. The key joins the code's player, as
#: with USE_LINK (the code stays); JSON [id, name], or an empty string for an unknown code.
USE_RECOVERY = (
    """
local p = ARGV[1]
local id = redis.call('HGET', p .. 'recover', ARGV[2])
if not id then return '' end
"""
    + _ADD_KEY
)

#: ARGV: prefix, player id, recovery hash, drop keys ('1'/'0'). The player's only recovery code.
SET_RECOVERY = """
local p = ARGV[1]
local player = p .. 'player:' .. ARGV[2]
local before = redis.call('HGET', player, 'recover')
if before then redis.call('HDEL', p .. 'recover', before) end
redis.call('HSET', p .. 'recover', ARGV[3], ARGV[2])
redis.call('HSET', player, 'recover', ARGV[3])
if ARGV[4] == '1' then
  local mine = p .. 'pkeys:' .. ARGV[2]
  for _, old in ipairs(redis.call('ZRANGE', mine, 0, -1)) do redis.call('HDEL', p .. 'pkeys', old) end
  redis.call('DEL', mine)
end
return 1
"""

#: ARGV: prefix, rule, then (id, old fold, new fold) triples. Each player's name moves to its new
#: fold where its old one is still its own; the rule is kept (`P foldrule`). Returns 1.
REFOLD = """
local p = ARGV[1]
for i = 3, #ARGV, 3 do
  if redis.call('HGET', p .. 'pnames', ARGV[i + 1]) == ARGV[i] then
    redis.call('HDEL', p .. 'pnames', ARGV[i + 1])
  end
end
for i = 3, #ARGV, 3 do
  local new = ARGV[i + 2]
  if string.byte(new, 1) ~= 0 then redis.call('HSET', p .. 'pnames', new, ARGV[i]) end
  redis.call('HSET', p .. 'player:' .. ARGV[i], 'fold', new)
end
redis.call('SET', p .. 'foldrule', ARGV[2])
return 1
"""

#: ARGV: prefix, fold, the released name's suffix separator. Frees a name: its player is
#: renamed (name#id's last 4), loses keys, link codes and recovery code. JSON [id, name] as it
#: was, or an empty string if nobody owns the name.
RELEASE = """
local p = ARGV[1]
local id = redis.call('HGET', p .. 'pnames', ARGV[2])
if not id then return '' end
local player = p .. 'player:' .. id
local name = redis.call('HGET', player, 'name')
redis.call('HDEL', p .. 'pnames', ARGV[2])
redis.call('HSET', player, 'name', name .. ARGV[3] .. string.sub(id, -4), 'fold', '')
local mine = p .. 'pkeys:' .. id
for _, old in ipairs(redis.call('ZRANGE', mine, 0, -1)) do redis.call('HDEL', p .. 'pkeys', old) end
redis.call('DEL', mine)
for _, code in ipairs(redis.call('ZRANGE', p .. 'plinks:' .. id, 0, -1)) do
  redis.call('DEL', p .. 'link:' .. code)
end
redis.call('DEL', p .. 'plinks:' .. id)
local recover = redis.call('HGET', player, 'recover')
if recover then redis.call('HDEL', p .. 'recover', recover) end
redis.call('HDEL', player, 'recover')
return cjson.encode({id, name})
"""

#: ARGV: prefix, game id, game JSON, finished at, retention seconds, public ('1'/'0'), now,
#: most history points, member count, then per member: player id, won ('1'/'0'); then per
#: rating write: ladder, player id, expected JSON ('' for none), new JSON, ordinal, point JSON.
#: Returns '1' when written, '0' and the stored JSON when the game is there already, '2' when
#: a rating is no longer the one read (nothing written).
ARCHIVE = """
local p, id, data = ARGV[1], ARGV[2], ARGV[3]
local finished, ttl, public, now = ARGV[4], tonumber(ARGV[5]), ARGV[6], tonumber(ARGV[7])
local points = tonumber(ARGV[8])
local game_key = p .. 'game:' .. id
local stored = redis.call('GET', game_key)
if stored then return '0' .. stored end
local members = tonumber(ARGV[9])
local first = 10 + 2 * members
for i = first, #ARGV, 6 do
  local held = redis.call('HGET', p .. 'rating:' .. ARGV[i], ARGV[i + 1]) or ''
  if held ~= ARGV[i + 2] then return '2' end
end
redis.call('SET', game_key, data, 'EX', ttl)
local cutoff = now - ttl
for i = 10, first - 1, 2 do
  local player, won = ARGV[i], tonumber(ARGV[i + 1])
  local all, open = p .. 'pgames:' .. player, p .. 'ppublic:' .. player
  redis.call('ZADD', all, finished, id)
  redis.call('ZREMRANGEBYSCORE', all, '-inf', cutoff)
  redis.call('EXPIRE', all, ttl)
  local stats = p .. 'stats:' .. player
  redis.call('HINCRBY', stats, 'games', 1)
  redis.call('HINCRBY', stats, 'wins', won)
  if public == '1' then
    redis.call('ZADD', open, finished, id)
    redis.call('ZREMRANGEBYSCORE', open, '-inf', cutoff)
    redis.call('EXPIRE', open, ttl)
    redis.call('HINCRBY', stats, 'public_games', 1)
    redis.call('HINCRBY', stats, 'public_wins', won)
  end
end
for i = first, #ARGV, 6 do
  local ladder, player = ARGV[i], ARGV[i + 1]
  redis.call('HSET', p .. 'rating:' .. ladder, player, ARGV[i + 3])
  redis.call('ZADD', p .. 'ladder:' .. ladder, ARGV[i + 4], player)
  local history = p .. 'hist:' .. player
  redis.call('RPUSH', history, ARGV[i + 5])
  redis.call('LTRIM', history, -points, -1)
end
return '1'
"""

#: ARGV: prefix, player id, everything ('1'/'0'), offset, limit, cutoff. JSON [total, [game
#: JSON...]]: the player's games newest first (entries past the retention are dropped first).
GAMES_OF = """
local p = ARGV[1]
local index = p .. (ARGV[3] == '1' and 'pgames:' or 'ppublic:') .. ARGV[2]
redis.call('ZREMRANGEBYSCORE', index, '-inf', ARGV[6])
local offset, limit = tonumber(ARGV[4]), tonumber(ARGV[5])
local games = {}
if limit > 0 then
  for _, id in ipairs(redis.call('ZREVRANGE', index, offset, offset + limit - 1)) do
    local data = redis.call('GET', p .. 'game:' .. id)
    if data then games[#games + 1] = data end
  end
end
return cjson.encode({redis.call('ZCARD', index), games})
"""

#: ARGV: prefix, ladder, limit. JSON [total, [[player id, rating JSON]...]] best first.
LADDER = """
local p = ARGV[1]
local order = p .. 'ladder:' .. ARGV[2]
local found = {}
for _, id in ipairs(redis.call('ZREVRANGE', order, 0, tonumber(ARGV[3]) - 1)) do
  found[#found + 1] = {id, redis.call('HGET', p .. 'rating:' .. ARGV[2], id) or ''}
end
return cjson.encode({redis.call('ZCARD', order), found})
"""

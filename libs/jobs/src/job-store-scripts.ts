/**
 * JobStore's Lua scripts: each change of a job is one script, so that starts, progress, cancels and ends sent
 * by different processes at once cannot interleave. KEYS[1] is the job's record (a hash of the JobRecord's
 * fields), KEYS[2] its checkpoints. A script acting on a run takes the run's id as ARGV[1] and the states it
 * acts from as ARGV[2] (space separated; JobStore reads them from JOB_STATE_MOVES), and leaves alone a record
 * of another run or in another state.
 */

/**
 * Every script that reads a record starts here. A record stored by a deployment before this layout (it kept
 * the PresQT answer's fields: `run_id`, `status` "in_progress" with a `cancelling` or `committing` flag,
 * `status_code` as JSON, `job_percentage`, the counts in snake case) is rewritten in this one first, in place
 * and keeping its expiry, so that jobs queued, running or ended before an upgrade carry on
 * (docs/jobs.md#the-job-record).
 */
const PRELUDE = `
local function upgrade(key)
  if redis.call('HEXISTS', key, 'run_id') == 0 then return end
  local flat = redis.call('HGETALL', key)
  local old = {}
  for i = 1, #flat, 2 do old[flat[i]] = flat[i + 1] end
  local state = old.status
  if state == 'in_progress' then
    state = (old.cancelling and 'cancelling') or (old.committing and 'committing') or 'running'
  end
  local fields = {
    'kind', old.kind, 'ticket', old.ticket, 'runId', old.run_id, 'state', state, 'message', old.message or '',
    'filesTotal', old.files_total or '0', 'filesDone', old.files_finished or '0',
    'bytesTotal', old.bytes_total or '0', 'bytesDone', old.bytes_finished or '0',
    'percent', old.job_percentage or '0', 'createdAt', old.created_at or '' }
  local function add(name, value) fields[#fields + 1] = name; fields[#fields + 1] = value end
  if old.ended_at and old.ended_at ~= '' then add('endedAt', old.ended_at) end
  if state == 'failed' then add('failureCode', tostring(tonumber(old.status_code) or 500)) end
  if state == 'finished' then add('result', old.result or '{}') end
  local ttl = redis.call('PTTL', key)
  redis.call('DEL', key)
  redis.call('HSET', key, unpack(fields))
  if ttl > 0 then redis.call('PEXPIRE', key, ttl) end
end

-- whether a space-separated list of states holds this one
local function among(states, state)
  return state and string.find(' ' .. states .. ' ', ' ' .. state .. ' ', 1, true) ~= nil
end

-- the state of run ARGV[1]; false when the record is another run's, or there is none
local function runState()
  if redis.call('HGET', KEYS[1], 'runId') ~= ARGV[1] then return false end
  return redis.call('HGET', KEYS[1], 'state')
end

upgrade(KEYS[1])
`;

const script = (body: string) => `${PRELUDE}${body}`;

/** The record's fields, as name, value, name, value... */
export const GET = script(`return redis.call('HGETALL', KEYS[1])`);

/**
 * Starts a run unless the user's job of this kind is in progress (ARGV[1], the states of a job in progress):
 * the one-job-per-kind-per-user rule (docs/behaviour.md#one-job-per-kind). ARGV[2...]: the run's fields.
 */
export const START = script(`
if among(ARGV[1], redis.call('HGET', KEYS[1], 'state')) then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
return 1`);

/**
 * Writes a run's progress: ARGV[4...] are name, value pairs, the first ARGV[3] of them counts that never go
 * down (docs/behaviour.md#job-status): a run taken over after its worker died counts again from nothing, and
 * shows the count the dead worker reached until it passes it.
 */
export const UPDATE = script(`
if not among(ARGV[2], runState()) then return 0 end
local growing = tonumber(ARGV[3])
for i = 4, #ARGV, 2 do
  local value = ARGV[i + 1]
  if (i - 4) / 2 < growing then
    value = math.max(tonumber(value), tonumber(redis.call('HGET', KEYS[1], ARGV[i]) or '0'))
  end
  redis.call('HSET', KEYS[1], ARGV[i], value)
end
return 1`);

/**
 * Ends a run and lets its record (and checkpoints) expire after ARGV[3] seconds; ARGV[5...]: the end's fields,
 * its state among them. 1: ended. 2: refused: the run is in progress (ARGV[4], the states of a job in
 * progress) but may not end so from where it stands (the user is cancelling it: it ends only as cancelled).
 * 0: another run's record, or ended. The same end sent again (the worker sends again a command whose answer a
 * failover lost; its fields, the time included, are the same) answers 1 as the first did, so that the worker
 * does not take it for a cancel.
 */
export const END = script(`
local state = runState()
if not among(ARGV[2], state) then
  if among(ARGV[4], state) then return 2 end
  if not state then return 0 end
  for i = 5, #ARGV, 2 do
    if redis.call('HGET', KEYS[1], ARGV[i]) ~= ARGV[i + 1] then return 0 end
  end
  return 1
end
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return 1`);

/**
 * A user's cancel of a run in progress (docs/behaviour.md#cancel); KEYS[3] is the run's lease. A run no worker
 * holds and none has checkpointed (still queued) wrote nothing: 2, it ends at once, as ARGV[6...] (the
 * cancelled end's fields), its record expiring after ARGV[3] seconds. Otherwise 1: the run goes on in progress,
 * in state ARGV[4] with the message ARGV[5], until the worker that holds it has taken back what it wrote and
 * ends it. 0: not in progress, or committing (too late).
 */
export const CANCEL = script(`
if not among(ARGV[2], runState()) then return 0 end
if redis.call('EXISTS', KEYS[2]) == 0 and redis.call('EXISTS', KEYS[3]) == 0 then
  redis.call('HSET', KEYS[1], unpack(ARGV, 6))
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  return 2
end
redis.call('HSET', KEYS[1], 'state', ARGV[4], 'message', ARGV[5])
return 1`);

/** Sets a run's fields (ARGV[3...], name, value pairs) from the states it may change from: 1, else 0. */
export const MOVE = script(`
if not among(ARGV[2], runState()) then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
return 1`);

/** Records checkpoints (ARGV[3...], item, data pairs) of a run in progress. */
export const CHECKPOINT = script(`
if not among(ARGV[2], runState()) then return 0 end
redis.call('HSET', KEYS[2], unpack(ARGV, 3))
return 1`);

/** Holds a run's lease (KEYS[1]) for `holder` when it is free or theirs already, for ARGV[2] milliseconds more. */
export const HOLD = `
local current = redis.call('GET', KEYS[1])
if current and current ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

/** Gives a run's lease up, if `holder` still has it. */
export const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

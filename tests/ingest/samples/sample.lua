-- A tiny job queue with retries.
local uv = vim and vim.loop or require("luv")

local M = {}

local DEFAULT_RETRIES = 3

local function now()
  return uv.now()
end

local Queue = {}
Queue.__index = Queue

function Queue.new(opts)
  opts = opts or {}
  local self = setmetatable({}, Queue)
  self.jobs = {}
  self.retries = opts.retries or DEFAULT_RETRIES
  return self
end

function Queue:push(job)
  job.attempts = 0
  job.queued_at = now()
  table.insert(self.jobs, job)
end

function Queue:pop()
  return table.remove(self.jobs, 1)
end

function Queue:run_one()
  local job = self:pop()
  if not job then
    return false
  end
  local ok, err = pcall(job.fn)
  if not ok then
    job.attempts = job.attempts + 1
    if job.attempts < self.retries then
      self:push(job)
    else
      M.on_error(job, err)
    end
  end
  return true
end

M.on_error = function(job, err)
  io.stderr:write(("job %s failed: %s\n"):format(job.name, tostring(err)))
end

local format_duration = function(ms)
  if ms < 1000 then
    return ms .. "ms"
  end
  return string.format("%.1fs", ms / 1000)
end

function M.drain(queue)
  local started = now()
  while queue:run_one() do
  end
  return format_duration(now() - started)
end

M.handlers = {
  log = function(message)
    print(message)
  end,
  ignore = function() end,
}

function M.setup(opts)
  M.queue = Queue.new(opts)
  return M
end

M.Queue = Queue

return M

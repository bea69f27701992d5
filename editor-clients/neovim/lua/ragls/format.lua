--- Formatting shared by the statusline, :Ragls status and the messages: counts, sizes, ages,
--- and the full status report (the same layout as the VS Code extension's).
local M = {}

--- 1919 -> "1,919".
function M.count(n)
  local text = tostring(math.floor(n or 0))
  local sign, digits = text:match('^(-?)(%d+)$')
  digits = digits:reverse():gsub('(%d%d%d)', '%1,'):reverse():gsub('^,', '')
  return sign .. digits
end

function M.size_text(bytes)
  if bytes < 1024 then
    return ('%d B'):format(bytes)
  end
  local value, units, unit = bytes / 1024, { 'KB', 'MB', 'GB' }, 1
  while value >= 1024 and unit < #units do
    value, unit = value / 1024, unit + 1
  end
  return ('%.1f %s'):format(value, units[unit])
end

function M.age_text(seconds)
  seconds = math.max(0, seconds)
  if seconds < 90 then
    return ('%d s'):format(math.floor(seconds + 0.5))
  elseif seconds < 5400 then
    return ('%d min'):format(math.floor(seconds / 60 + 0.5))
  elseif seconds < 129600 then
    return ('%d h'):format(math.floor(seconds / 3600 + 0.5))
  end
  return ('%d d'):format(math.floor(seconds / 86400 + 0.5))
end

--- Seconds since the epoch of an ISO 8601 UTC time ("2026-12-03T17:29:32.005+00:00"), or nil.
function M.utc_seconds(iso)
  if type(iso) ~= 'string' then
    return nil
  end
  local y, mo, d, h, mi, s = iso:match('^(%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)')
  if y == nil then
    return nil
  end
  y, mo, d = tonumber(y), tonumber(mo), tonumber(d)
  y = mo <= 2 and y - 1 or y -- days from the civil date (H. Hinnant's algorithm)
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local doy = math.floor((153 * ((mo + 9) % 12) + 2) / 5) + d - 1
  local days = era * 146097 + yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy - 719468
  return days * 86400 + tonumber(h) * 3600 + tonumber(mi) * 60 + tonumber(s)
end

local function present(value)
  return value ~= nil and value ~= vim.NIL
end

--- The stored index in one phrase (rag/status `cache`; protocol.md §9).
function M.cache_text(cache)
  local stored = type(cache.storedGeneration) == 'number' and ('generation ' .. cache.storedGeneration)
    or 'nothing stored'
  local age = type(cache.ageSeconds) == 'number' and (', written ' .. M.age_text(cache.ageSeconds) .. ' ago') or ''
  local detail = (type(cache.detail) == 'string' and cache.detail ~= '') and (': ' .. cache.detail) or ''
  return ('index on disk: %s (%s, %s%s)%s'):format(cache.state, stored, M.size_text(cache.bytesOnDisk or 0), age, detail)
end

--- What in a session's status a user should look at: a failed run, unreadable files, a failed
--- save, coverage warnings.
function M.problems(status)
  local found = {}
  if present(status.lastError) then
    table.insert(found, 'the last run failed: ' .. status.lastError)
  end
  if type(status.errors) == 'table' and #status.errors > 0 then
    -- Said inside the status report, which lists them under "Files that could not be read".
    table.insert(found, ('%d file(s) could not be read (listed below)'):format(#status.errors))
  end
  if type(status.cache) == 'table' and status.cache.state == 'failed' then
    table.insert(found, M.cache_text(status.cache))
  end
  for _, warning in ipairs(type(status.warnings) == 'table' and status.warnings or {}) do
    table.insert(found, warning)
  end
  return found
end

--- "indexing 40%" from files read of files to read ("indexing" while the total is unknown).
function M.percent_text(indexed, total)
  if type(indexed) ~= 'number' or type(total) ~= 'number' or total <= 0 then
    return 'indexing'
  end
  return ('indexing %d%%'):format(math.floor(100 * math.min(indexed, total) / total))
end

--- What a search says of an answer from a partial generation of a first index still under
--- way (protocol.md §5a), or nil for an answer from a whole generation.
function M.partial_note(answer)
  if type(answer) ~= 'table' or answer.partial ~= true then
    return nil
  end
  local progress = answer.progress
  if type(progress) ~= 'table' then
    return 'partial results: the first index is still being built'
  end
  return ('partial results: %s (%s/%s files read)'):format(
    M.percent_text(progress.indexedFiles, progress.totalFiles),
    M.count(progress.indexedFiles), M.count(progress.totalFiles))
end

local function progress_text(status)
  local progress = status.progress
  if type(progress) ~= 'table' or (progress.totalFiles or 0) == 0 then
    return 'indexing'
  end
  local text = ('%s (%s/%s files)'):format(M.percent_text(progress.indexedFiles, progress.totalFiles),
    M.count(progress.indexedFiles), M.count(progress.totalFiles))
  if status.partial == true then
    text = text .. (', answers from the first %s files (partial)'):format(M.count(status.fileCount))
  end
  return text
end

--- The full status of every session (rag/sessions) as Markdown lines.
function M.report(statuses, now)
  local out = { '# ragls status', '', 'As of ' .. os.date('!%Y-%m-%dT%H:%M:%SZ', now) .. '.', '' }
  if #statuses == 0 then
    vim.list_extend(out, { 'No project is open, so nothing is indexed.', '' })
  end
  -- A heading and a bullet list, left out when there is nothing to list.
  local function section(title, items)
    if type(items) ~= 'table' or #items == 0 then
      return
    end
    vim.list_extend(out, { '### ' .. title, '' })
    for _, item in ipairs(items) do
      table.insert(out, '- ' .. item)
    end
    table.insert(out, '')
  end
  for _, s in ipairs(statuses) do
    local root = present(s.root) and s.root or s.session
    local at = M.utc_seconds(s.lastIndexTime)
    local age = at and (', updated ' .. M.age_text(now - at) .. ' ago') or ''
    vim.list_extend(out, { '## ' .. vim.fs.basename(root), '', '`' .. root .. '`', '', '| | |', '|---|---|' })
    local function row(name, value)
      table.insert(out, ('| %s | %s |'):format(name, (value:gsub('|', '\\|'))))
    end
    row('Files', M.count(s.fileCount))
    row('Chunks', M.count(s.chunkCount))
    row('Generation', s.generation .. age)
    row('State', (s.indexing or s.generation == 0) and progress_text(s) or (s.stale and 'changes pending' or 'up to date'))
    row('Watcher', type(s.watcher) == 'table'
      and ('%s (%s watches)%s'):format(s.watcher.state, M.count(s.watcher.watches),
        (s.watcher.detail or '') ~= '' and (': ' .. s.watcher.detail) or '')
      or 'none')
    row('Ranking', s.pipeline or '')
    if type(s.cache) == 'table' then
      row('Index on disk', (M.cache_text(s.cache):gsub('^index on disk: ', '')))
    end
    if type(s.lastRun) == 'table' then
      local run = s.lastRun
      row('Last run', ('%s %s read, %s chunked, %s removed'):format(M.count(run.filesRead),
        run.filesRead == 1 and 'file' or 'files', M.count(run.filesChunked), M.count(run.filesRemoved)))
    end
    if (s.addedDocumentCount or 0) > 0 then
      row('Added documents', M.count(s.addedDocumentCount))
    end
    vim.list_extend(out, { '', '### Not indexed', '' })
    local reasons = vim.tbl_keys(type(s.skipped) == 'table' and s.skipped or {})
    table.sort(reasons)
    if #reasons == 0 then
      vim.list_extend(out, { 'Nothing was skipped.', '' })
    else
      vim.list_extend(out, { '| Reason | Files and folders |', '|---|---|' })
      for _, reason in ipairs(reasons) do
        table.insert(out, ('| %s | %s |'):format(reason, M.count(s.skipped[reason])))
      end
      vim.list_extend(out, { '', 'For one file, run :Ragls explain {path}.', '' })
    end
    section('Problems', M.problems(s))
    section('Files that could not be read', s.errors)
    section('Notes', s.hints)
  end
  return out
end

return M

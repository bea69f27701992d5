--- ragls for Neovim: one daemon per Neovim instance, every project root a workspace folder.
---
--- Public API (for other plugins, e.g. AI chat plugins):
---   require('ragls').setup(opts)
---   require('ragls').search(query, { top_k = 5, session = nil }, function(err, results, warnings, session) end)
---   require('ragls').build_context_prompt(question, opts, function(err, prompt) end)
---   require('ragls').build_context_prompt_sync(question, opts) -> prompt | nil, err
---   require('ragls').references(name_or_nil, opts, function(err, answer) end)   (rag/references)
---   require('ragls').status() -> a short string for the statusline
---   require('ragls').client() -> the vim.lsp.Client or nil
local config = require('ragls.config')

local M = {}

local state = {
  client_id = nil,
  folders = {}, -- uri -> true
  progress = nil, -- last LspProgress message
  sessions = {}, -- uri -> { chunks, at (os.time() of the update), problems }
  updates = 0,
  timer = nil, -- redraws the statusline every 30 s, for the age
}

local function notify_error(message)
  vim.notify('ragls: ' .. message, vim.log.levels.ERROR)
end

--- A client Neovim started itself (`vim.lsp.enable('ragls')`), adopted so the commands and the
--- Lua API work on that route too.
local function adopt_enabled_client()
  for _, client in ipairs(vim.lsp.get_clients({ name = 'ragls' })) do
    if not client:is_stopped() then
      state.client_id = client.id
      for _, wf in ipairs(client.workspace_folders or {}) do
        state.folders[wf.uri] = true
      end
      return
    end
  end
end

--- The rag/indexUpdated notification: count it, remember the chunk count, tell other plugins
--- (User RaglsIndexUpdated) and redraw the statusline. lsp/ragls.lua routes it here too.
function M.on_index_updated(_, result)
  state.updates = state.updates + 1
  if type(result) == 'table' and type(result.session) == 'string' then
    local session = state.sessions[result.session] or {}
    session.chunks, session.at = result.chunkCount, os.time()
    state.sessions[result.session] = session
    -- What the notification does not carry (warnings, a failed run): asked for, not waited on.
    local client = M.client()
    if client ~= nil then
      client:request('rag/status', { session = result.session }, function(err, status)
        if err == nil and type(status) == 'table' then
          session.problems = #require('ragls.format').problems(status)
          vim.schedule(function() vim.cmd.redrawstatus({ bang = true }) end)
        end
      end)
    end
  end
  vim.api.nvim_exec_autocmds('User', { pattern = 'RaglsIndexUpdated', data = result })
  -- The statusline helper's text changed: show it now, not at the next redraw.
  vim.schedule(function()
    vim.cmd.redrawstatus({ bang = true })
  end)
  if state.timer == nil then
    state.timer = vim.uv.new_timer()
    state.timer:start(30000, 30000, vim.schedule_wrap(function()
      vim.cmd.redrawstatus({ bang = true })
    end))
  end
end

--- The running ragls client, if any.
---@return vim.lsp.Client|nil
function M.client()
  if state.client_id == nil then
    adopt_enabled_client()
  end
  if state.client_id == nil then
    return nil
  end
  local client = vim.lsp.get_client_by_id(state.client_id)
  if client == nil or client:is_stopped() then
    state.client_id = nil
    return nil
  end
  return client
end

local function root_for(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' or vim.bo[bufnr].buftype ~= '' then
    return nil
  end
  return vim.fs.root(bufnr, config.options.root_markers)
end

local function folder(root)
  return { uri = vim.uri_from_fname(root), name = vim.fs.basename(root) }
end

-- A daemon that exits on its own (a crash, or status 3 after unrecoverable framing) is started
-- again with the same folders, and the user is told; at most RESTARTS times in RESTART_WINDOW_S
-- seconds, then it stays down with a message saying so. A stop asked for (client:stop(),
-- :LspStop, quitting Neovim) exits with status 0 and is not restarted.
local RESTARTS, RESTART_WINDOW_S = 3, 180
local restarts = {}
local started_id = nil -- the client this plugin started last

local function restart_after_exit(code, signal, client_id)
  if (code == 0 and signal == 0) or started_id ~= client_id then
    return
  end
  local now = vim.uv.now() / 1000
  while #restarts > 0 and now - restarts[1] > RESTART_WINDOW_S do
    table.remove(restarts, 1)
  end
  state.client_id = nil
  state.sessions = {}
  local folders = vim.tbl_keys(state.folders)
  table.sort(folders)
  state.folders = {}
  if #restarts >= RESTARTS or #folders == 0 then
    notify_error(('the daemon exited (code %d, signal %d) %d times in %d s; not restarting it'
      .. ' (:lua require("ragls").attach(vim.fn.getcwd()) starts it again)'):format(
      code, signal, #restarts + 1, RESTART_WINDOW_S))
    return
  end
  table.insert(restarts, now)
  vim.notify(('ragls: the daemon exited (code %d, signal %d); restarting it'):format(code, signal),
    vim.log.levels.WARN)
  for _, uri in ipairs(folders) do
    M.attach(vim.uri_to_fname(uri), nil)
  end
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    local root = vim.api.nvim_buf_is_loaded(bufnr) and root_for(bufnr) or nil
    if root ~= nil and state.client_id ~= nil then
      vim.lsp.buf_attach_client(bufnr, state.client_id)
    end
  end
end

--- Start the daemon for ``root`` or add ``root`` to the running one as a workspace folder.
---@param root string
---@param bufnr integer|nil
function M.attach(root, bufnr)
  local wf = folder(root)
  local client = M.client()
  if client == nil then
    local cmd, err = config.daemon_cmd()
    if cmd == nil then
      notify_error(err)
      return
    end
    local id = vim.lsp.start({
      name = 'ragls',
      cmd = cmd,
      root_dir = root,
      workspace_folders = { wf },
      init_options = config.options.init_options,
      handlers = { ['rag/indexUpdated'] = M.on_index_updated },
      on_exit = function(code, signal, client_id)
        vim.schedule(function() restart_after_exit(code, signal, client_id) end)
      end,
    }, { bufnr = bufnr, reuse_client = function() return false end, attach = bufnr ~= nil })
    if id == nil then
      notify_error('could not start ' .. table.concat(cmd, ' '))
      return
    end
    state.client_id = id
    started_id = id
    state.folders = { [wf.uri] = true }
    return
  end
  if bufnr ~= nil and not vim.lsp.buf_is_attached(bufnr, client.id) then
    vim.lsp.buf_attach_client(bufnr, client.id)
  end
  if not state.folders[wf.uri] then
    state.folders[wf.uri] = true
    client:notify('workspace/didChangeWorkspaceFolders', { event = { added = { wf }, removed = {} } })
  end
end

--- The session (workspace folder URI) of the current buffer, or nil for the daemon's default.
local function current_session()
  local root = root_for(0)
  if root ~= nil and state.folders[vim.uri_from_fname(root)] then
    return vim.uri_from_fname(root)
  end
  return nil
end

--- Why there is no daemon yet, and what to do: the root markers, and the current folder.
local function not_running()
  return ('the daemon is not running: it starts for a file inside a project, a folder holding one of %s'
    .. ' (setup option root_markers); to index the current folder, run'
    .. ' :lua require("ragls").attach(vim.fn.getcwd())'):format(table.concat(config.options.root_markers, ', '))
end

local function request(method, params, callback)
  local client = M.client()
  if client == nil then
    callback({ message = not_running() }, nil)
    return
  end
  client:request(method, params, function(err, result)
    callback(err, result)
  end)
end

local function request_sync(method, params)
  local client = M.client()
  if client == nil then
    return nil, not_running()
  end
  local response, message = client:request_sync(method, params, config.options.timeout_ms)
  if response == nil then
    return nil, message or 'no answer from the daemon'
  end
  if response.err then
    return nil, response.err.message
  end
  return response.result, nil
end

local function params_for(query, opts)
  opts = opts or {}
  local params = { query = query, topK = opts.top_k or config.options.top_k }
  local session = opts.session or current_session()
  if session ~= nil then
    params.session = session
  end
  return params
end

--- The warnings an answer carries (e.g. "BM25 covers 10,000 of 28,938 chunks: ..."), or {}.
local function warnings_of(result)
  return result and type(result.warnings) == 'table' and result.warnings or {}
end

--- The session that answered (the answer's `session`), or nil.
local function session_of(result)
  return result and type(result.session) == 'string' and result.session or nil
end

--- While a first index runs, the answer's `progress` ({indexedFiles, totalFiles}: the files the
--- partial generation that answered holds, protocol.md §5a); nil for a whole generation.
local function partial_of(result)
  if result == nil or result.partial ~= true then
    return nil
  end
  return type(result.progress) == 'table' and result.progress or {}
end

--- callback(err, results, warnings, session, partial): `session` is the one that answered,
--- `partial` is set (files read of files to read) when the answer is from a first index still
--- under way.
function M.search(query, opts, callback)
  request('rag/search', params_for(query, opts), function(err, result)
    callback(err, result and result.results or nil, warnings_of(result), session_of(result), partial_of(result))
  end)
end

--- Returns results, err, warnings, session (the one that answered), partial (as M.search).
function M.search_sync(query, opts)
  local result, err = request_sync('rag/search', params_for(query, opts))
  return result and result.results or nil, err, warnings_of(result), session_of(result), partial_of(result)
end

--- callback(err, prompt, warnings)
function M.build_context_prompt(question, opts, callback)
  request('rag/buildContextPrompt', params_for(question, opts), function(err, result)
    callback(err, result and result.prompt or nil, warnings_of(result))
  end)
end

--- Returns prompt, err, warnings.
function M.build_context_prompt_sync(question, opts)
  local result, err = request_sync('rag/buildContextPrompt', params_for(question, opts))
  return result and result.prompt or nil, err, warnings_of(result)
end

-- The names before the wire's `rag/buildContextPrompt` became the one name (kept for callers).
M.context_prompt = M.build_context_prompt
M.context_prompt_sync = M.build_context_prompt_sync

--- rag/references (protocol.md): the uses of a name, matched by name (no type resolution),
--- grouped by file, with the name's definitions. ``name`` nil: the identifier under the cursor of
--- the current buffer (the daemon reads it off the file's symbols, in the project holding the
--- file); a name is asked of the current buffer's project. callback(err, answer).
function M.references(name, opts, callback)
  request('rag/references', M.references_params(name, opts), callback)
end

--- Returns answer, err (as M.references).
function M.references_sync(name, opts)
  return request_sync('rag/references', M.references_params(name, opts))
end

function M.references_params(name, opts)
  opts = opts or {}
  if name == nil or name == '' then
    local here = vim.lsp.util.make_position_params(0, 'utf-16')
    return { uri = here.textDocument.uri, position = here.position }
  end
  local params = { name = name }
  local session = opts.session or current_session()
  if session ~= nil then
    params.session = session
  end
  return params
end

--- A rag/references answer as quickfix items: the definitions first (at their names), then
--- every use with the definition it is inside. Columns are the daemon's UTF-16 ones (bytes on
--- ASCII lines).
function M.reference_items(answer)
  local items = {}
  for _, definition in ipairs(answer and answer.definitions or {}) do
    local at = definition.selectionRange.start
    local container = definition.container ~= '' and (definition.container .. '.') or ''
    table.insert(items, {
      filename = vim.uri_to_fname(definition.uri),
      lnum = at.line + 1,
      col = at.character + 1,
      text = ('definition: %s %s%s%s'):format(definition.kind, container, definition.name,
        type(definition.signature) == 'string' and ('  ' .. definition.signature) or ''),
    })
  end
  for _, file in ipairs(answer and answer.files or {}) do
    for _, reference in ipairs(file.references or {}) do
      local at = reference.range.start
      local inside = type(reference.enclosing) == 'string' and ('in ' .. reference.enclosing .. ': ') or ''
      table.insert(items, {
        filename = vim.uri_to_fname(file.uri),
        lnum = at.line + 1,
        col = at.character + 1,
        text = inside .. (type(reference.text) == 'string' and reference.text or answer.name),
      })
    end
  end
  return items
end

function M.index(force, callback)
  local params = { force = force or false }
  local session = current_session()
  if session ~= nil then
    params.session = session
  end
  request('rag/index', params, callback)
end

--- The session of the open project folder that holds ``path`` (the deepest), or nil.
local function session_holding(path)
  local found, length = nil, -1
  for uri in pairs(state.folders) do
    local root = vim.uri_to_fname(uri)
    if (path == root or vim.startswith(path, root .. '/')) and #root > length then
      found, length = uri, #root
    end
  end
  return found
end

--- Whether a path is indexed and, if not, why (rag/explainPath). Returns result, err.
--- Asked of the project that holds the path, else of the current buffer's.
function M.explain_sync(path)
  local params = { path = path }
  local session = session_holding(path) or current_session()
  if session ~= nil then
    params.session = session
  end
  return request_sync('rag/explainPath', params)
end

--- The status of every session (rag/sessions).
function M.sessions_sync()
  local result, err = request_sync('rag/sessions', vim.empty_dict())
  if result == nil then
    return nil, err
  end
  return result.sessions
end

function M.status_sync()
  local params = vim.empty_dict()
  local session = current_session()
  if session ~= nil then
    params = { session = session }
  end
  return request_sync('rag/status', params)
end

--- A short string for the statusline: progress while indexing; once indexed, the chunks of
--- every folder, how long ago the newest generation went live, and a warning count.
---@return string
function M.status()
  if M.client() == nil then
    return ''
  end
  if state.progress ~= nil then
    return 'ragls: ' .. state.progress
  end
  local chunks, newest, problems = 0, nil, 0
  for _, session in pairs(state.sessions) do
    chunks = chunks + (session.chunks or 0)
    newest = math.max(newest or session.at, session.at)
    problems = problems + (session.problems or 0)
  end
  if newest == nil then
    return 'ragls: starting'
  end
  local format = require('ragls.format')
  local text = ('ragls: %s chunks · %s ago'):format(format.count(chunks), format.age_text(os.time() - newest))
  if problems > 0 then
    text = text .. (' · %d warning%s'):format(problems, problems == 1 and '' or 's')
  end
  return text
end

--- Turn daemon results into quickfix items (absolute file names, line ranges, symbol text).
function M.quickfix_items(results, root)
  local items = {}
  for _, result in ipairs(results or {}) do
    local meta = result.metadata or {}
    local first_line = (result.content or ''):match('[^\n]*') or ''
    local label = meta.symbol and ((meta.kind and (meta.kind .. ' ') or '') .. meta.symbol .. ': ') or ''
    table.insert(items, {
      filename = meta.file and vim.fs.joinpath(root or vim.fn.getcwd(), meta.file) or nil,
      lnum = meta.startLine or 1,
      end_lnum = meta.endLine,
      text = label .. vim.trim(first_line),
      user_data = { id = result.id, score = result.score },
    })
  end
  return items
end

--- The folder of a session that answered, when it is a workspace folder's (its id is the folder
--- URI); nil for a named session. Result paths are relative to it: the daemon's default session
--- (a request that names none) need not be the project Neovim started it for, e.g. after a
--- restart with several projects open, so the answer says, not the current buffer.
function M.session_folder(session)
  if type(session) == 'string' and session:match('^file://') then
    return vim.uri_to_fname(session)
  end
  return nil
end

function M.session_root()
  local session = current_session()
  if session ~= nil then
    return vim.uri_to_fname(session)
  end
  local client = M.client()
  return client and client.config.root_dir or vim.fn.getcwd()
end

function M.setup(opts)
  config.set(opts)
  local group = vim.api.nvim_create_augroup('ragls', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
    group = group,
    callback = function(event)
      local root = root_for(event.buf)
      if root ~= nil then
        M.attach(root, event.buf)
      end
    end,
  })
  vim.api.nvim_create_autocmd('LspProgress', {
    group = group,
    callback = function(event)
      local client = M.client()
      if client == nil or event.data.client_id ~= client.id then
        return
      end
      local value = event.data.params.value or {}
      if value.kind == 'end' then
        state.progress = nil
      elseif value.kind == 'report' and type(value.percentage) == 'number' then
        state.progress = ('indexing %d%%'):format(value.percentage) -- as the VS Code status item
      else
        state.progress = value.message or value.title
      end
      vim.cmd.redrawstatus({ bang = true })
    end,
  })
  -- Buffers opened before setup() (e.g. files given on the command line).
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) then
      local root = root_for(bufnr)
      if root ~= nil then
        M.attach(root, bufnr)
      end
    end
  end
end

M._state = state
return M

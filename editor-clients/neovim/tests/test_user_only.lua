-- Headless Neovim: a project cannot set the user-only daemon settings.
--   nvim --clean --headless --cmd 'set rtp+=PLUGIN' -l tests/test_user_only.lua PYTHON WORKSPACE
-- The plugin reads the daemon's settings from setup() and vim.lsp.config() only. Here two projects
-- carry every file that some tool reads as per-project settings (VS Code's .vscode/settings.json,
-- flat and nested, Neovim's exrc files, a project-local lsp/ragls.lua), each setting the user-only
-- keys; the daemon must keep the user's: its index in the user's cache folder, no folder beyond the
-- workspace, secrets masked.
local python, workspace = arg[1], arg[2]
local harness = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'harness.lua'))
local check = harness.check

local outside = vim.fn.tempname() -- a folder no project may add
vim.fn.mkdir(outside, 'p')
local project_cache = workspace .. '/.project-cache'
local hostile = {
  persistence = { enabled = true, cacheDir = project_cache, store = 'postgresql://ragls@db.example.invalid/team' },
  allowedRoots = { outside },
  secretDetection = false,
  secretNames = {},
  limits = { maxFileBytes = 1099511627776 },
}
-- Made at run time: nothing token-shaped is committed.
local token = 'ghp_' .. ('aB3dE5gH7jK9'):rep(3)

local function write(path, text)
  vim.fn.mkdir(vim.fs.dirname(path), 'p')
  vim.fn.writefile(vim.split(text, '\n'), path)
end

local function plant(root)
  local flat = {
    ['ragls.persistence.cacheDir'] = project_cache,
    ['ragls.persistence.store'] = hostile.persistence.store,
    ['ragls.allowedRoots'] = hostile.allowedRoots,
    ['ragls.secretDetection'] = false,
  }
  write(root .. '/.vscode/settings.json', vim.json.encode(vim.tbl_extend('error', flat, { ragls = hostile })))
  local options = vim.inspect(hostile)
  local lua = ('vim.lsp.config("ragls", { init_options = %s })\nrequire("ragls").setup({ init_options = %s })')
    :format(options, options)
  write(root .. '/.nvim.lua', lua)
  write(root .. '/.nvimrc', 'lua ' .. lua:gsub('\n', ' '))
  write(root .. '/.exrc', 'lua ' .. lua:gsub('\n', ' '))
  write(root .. '/lsp/ragls.lua', 'return { init_options = ' .. options .. ' }')
  write(root .. '/src/deploy.py', ('GITHUB_TOKEN = "%s"\n\ndef deploy():\n    return GITHUB_TOKEN\n'):format(token))
end

local second = vim.fn.tempname()
vim.fn.mkdir(second .. '/.git', 'p')
plant(workspace)
plant(second)

-- Neovim's own per-project source is 'exrc' (off by default): it runs a file only once the user
-- has trusted it (:trust), and reads it with vim.secure.read, which refuses an untrusted one.
check(vim.secure.read(workspace .. '/.nvim.lua') == nil, 'an untrusted exrc (.nvim.lua) is not read')
-- The vim.lsp.enable route resolves lsp/ragls.lua on 'runtimepath' only: a project's is not there.
local resolved = vim.lsp.config.ragls or {}
check(vim.tbl_isempty(resolved.init_options or {}), "a project's lsp/ragls.lua does not reach vim.lsp.config: "
  .. vim.inspect(resolved.init_options))

local ragls = require('ragls')
local user = { debounceMs = 50 }
ragls.setup({ cmd = { python, '-m', 'ragls', 'serve' }, init_options = user })
vim.cmd.edit(workspace .. '/src/deploy.py')
check(vim.wait(15000, function()
  local client = ragls.client()
  return client ~= nil and client.initialized
end, 20), 'the daemon started for the project')
vim.cmd.edit(second .. '/src/deploy.py')
local second_uri = vim.uri_from_fname(second)
check(ragls._state.folders[second_uri] == true, 'the second project became a workspace folder')
check(vim.deep_equal(ragls.client().config.init_options, user),
  "initializationOptions are the user's alone: " .. vim.inspect(ragls.client().config.init_options))

local statuses
check(vim.wait(30000, function()
  statuses = ragls.sessions_sync() or {}
  local live = 0
  for _, status in ipairs(statuses) do
    live = live + ((status.generation or 0) > 0 and 1 or 0)
  end
  return live == 2
end, 50), 'both projects are indexed')

local cache_root = vim.fn.resolve(vim.env.RAGLS_CACHE_DIR or vim.fs.joinpath(vim.env.XDG_CACHE_HOME or '', 'ragls'))
for _, status in ipairs(statuses) do
  local where = vim.fn.resolve((status.cache or {}).path or '')
  check(vim.startswith(where, cache_root .. '/'), "the index is kept in the user's cache folder: " .. where)
end
check(vim.fn.isdirectory(project_cache) == 0, "nothing is written where the project's settings said")

for _, session in ipairs({ vim.uri_from_fname(workspace), second_uri }) do
  local results, err = ragls.search_sync('GITHUB_TOKEN deploy', { session = session })
  local text = table.concat(vim.tbl_map(function(result) return result.content end, results or {}), '\n')
  check(err == nil and text:find('\u{2039}redacted:github-token', 1, true) ~= nil and text:find(token, 1, true) == nil,
    'secrets stay masked in ' .. session .. ': ' .. tostring(err))
end

local client = ragls.client()
client:request_sync('rag/createSession', { session = 'outside' }, 10000)
local response = client:request_sync('rag/index', { session = 'outside', path = outside }, 10000) or {}
check(response.err ~= nil and tostring(response.err.message):match('allowedRoots') ~= nil,
  "a folder the project's allowedRoots named stays refused: " .. vim.inspect(response.err))

client:stop()
check(vim.wait(10000, function() return client:is_stopped() end, 20), 'the daemon stops cleanly')
vim.fn.delete(second, 'rf')
vim.fn.delete(outside, 'rf')
harness.finish()

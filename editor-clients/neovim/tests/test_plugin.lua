-- Headless Neovim against the real daemon:
--   nvim --clean --headless --cmd 'set rtp+=PLUGIN' -l tests/test_plugin.lua PYTHON WORKSPACE
-- Prints one line per check; exits 1 if any check fails (or on any Lua error).
local python, workspace = arg[1], arg[2]
local harness = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'harness.lua'))
local check = harness.check

local ragls = require('ragls')
check(vim.fn.exists(':Ragls') == 2, 'plugin/ragls.lua defines :Ragls')
check(vim.fn.maparg('<Plug>(ragls-search)', 'n') ~= '', '<Plug>(ragls-search) exists')
check(vim.fn.mapcheck('<leader>r', 'n') == '', 'no default keymaps')

local ok, err = pcall(ragls.setup, { top_k = 0 })
check(not ok and tostring(err):match('top_k'), 'invalid options are refused naming the option')

-- Finding the daemon without a cmd: $VIRTUAL_ENV, PATH, ~/.local/bin; else advice, in
-- :checkhealth too. (The real environment is put back afterwards.)
local config = require('ragls.config')
local saved = { PATH = vim.env.PATH, VIRTUAL_ENV = vim.env.VIRTUAL_ENV, HOME = vim.env.HOME }
vim.env.PATH, vim.env.VIRTUAL_ENV, vim.env.HOME = '/nonexistent', nil, vim.fn.tempname()
ragls.setup({})
local none, why = config.daemon_cmd()
check(none == nil and tostring(why):match('not found; looked in PATH, .*%.local/bin') ~= nil
  and tostring(why):match('pipx install <ragls checkout>') ~= nil, 'no daemon anywhere: ' .. tostring(why))
vim.cmd('checkhealth ragls')
local sick = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
check(sick:match('ERROR') ~= nil and sick:match('pipx install') ~= nil, ':checkhealth ragls gives the same advice')
vim.cmd.bwipeout()
local venv = vim.fs.dirname(vim.fs.dirname(python))
vim.env.VIRTUAL_ENV = venv
local found = config.daemon_cmd()
check(found ~= nil and found[1] == vim.fs.joinpath(venv, 'bin', 'ragls') and found[2] == 'serve',
  'found in $VIRTUAL_ENV/bin: ' .. vim.inspect(found))
vim.env.PATH, vim.env.VIRTUAL_ENV, vim.env.HOME = saved.PATH, saved.VIRTUAL_ENV, saved.HOME

ragls.setup({ cmd = { python, '-m', 'ragls', 'serve' }, init_options = { debounceMs = 50 } })
local _, not_yet = ragls.search_sync('anything')
check(tostring(not_yet):match('one of %.git') ~= nil and tostring(not_yet):match('getcwd') ~= nil,
  'before a project opens, errors name the root markers and how to index the current folder')
vim.cmd.edit(workspace .. '/src/auth.py')
check(vim.wait(15000, function()
  local client = ragls.client()
  return client ~= nil and client.initialized
end, 20), 'the daemon started for the project root')
check(vim.wait(30000, function() return ragls._state.updates > 0 end, 20), 'the first generation is live')
check(ragls.status():match('^ragls: [%d,]+ chunks · %d+ s ago$') ~= nil, 'statusline helper: ' .. ragls.status())

vim.cmd('Ragls search verify the password')
check(vim.wait(10000, function() return #vim.fn.getqflist() > 0 end, 20), ':Ragls search fills the quickfix list')
local first = vim.fn.getqflist()[1] or {}
check(vim.fn.bufname(first.bufnr or 0):match('src/auth%.py$') ~= nil, 'first result is src/auth.py')
check(first.lnum == 1 and first.end_lnum == 2, 'with its line range')
check((first.text or ''):match('^function login: ') ~= nil, 'and its symbol: ' .. tostring(first.text))
check(vim.fn.getqflist({ title = 1 }).title == 'ragls: verify the password', 'quickfix title names the query')

vim.cmd('Ragls context How is the password verified?')
check(vim.wait(10000, function() return vim.fn.getreg('"'):match('^<tnsai%-memory>') ~= nil end, 20),
  ':Ragls context puts the fence into the register')
check(vim.fn.getreg('"'):match('<tnsai%-user%-message>\nHow is the password verified%?\n</tnsai%-user%-message>$') ~= nil,
  'the question follows the fence')
check(vim.api.nvim_buf_get_name(0):match('^ragls://context/') ~= nil, 'and into a scratch buffer')
vim.cmd.close()

local prompt = ragls.build_context_prompt_sync('password', { top_k = 1 })
check(prompt ~= nil and prompt:match('src/auth%.py') ~= nil, 'Lua API: build_context_prompt_sync')
check(ragls.context_prompt_sync == ragls.build_context_prompt_sync, 'the earlier name still works')

vim.cmd.edit(workspace .. '/src/wildlife.py')
vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'def gate():', "    return 'capybara crossing'" })
vim.cmd.write()
check(vim.wait(15000, function()
  local results = ragls.search_sync('capybara crossing')
  return results ~= nil and #results > 0 and results[1].metadata.file == 'src/wildlife.py'
end, 50), 'a file written with :write becomes searchable')

local bad_results, bad_err = ragls.search_sync('x', { top_k = 500 })
check(bad_results == nil and tostring(bad_err):match('topK') ~= nil, 'daemon errors reach the caller: ' .. tostring(bad_err))
harness.clear_notices()
vim.cmd('Ragls bogus')
check(#harness.notices == 1 and harness.notices[1].level == vim.log.levels.ERROR, 'unknown subcommands are reported as errors')

check(vim.deep_equal(vim.fn.getcompletion('Ragls s', 'cmdline'), { 'search', 'status' }), 'subcommand completion')

local forced = ragls._state.updates
harness.clear_notices()
vim.cmd('Ragls index!')
check(vim.wait(30000, function()
  for _, notice in ipairs(harness.notices) do
    if notice.message:match('^ragls: indexed %d+ files') then
      return ragls._state.updates > forced
    end
  end
  return false
end, 20), ':Ragls index! re-indexes (as documented)')
check(ragls.status():match('^ragls: [%d,]+ chunks · %d+ s ago$') ~= nil, 'the statusline helper shows the new generation: ' .. ragls.status())

harness.clear_notices()
vim.cmd('Ragls index')
check(vim.wait(30000, function()
  for _, notice in ipairs(harness.notices) do
    if notice.message:match('^ragls: indexed %d+ files, %d+ chunks$') then
      return true
    end
  end
  return false
end, 20), ':Ragls index (without !) indexes what changed and says so')

harness.clear_notices()
vim.cmd('Ragls explain')
check(#harness.notices == 1 and harness.notices[1].message:match('src/wildlife%.py is indexed %(1 chunks%)') ~= nil,
  ':Ragls explain on the current buffer')
harness.clear_notices()
vim.cmd('Ragls explain ' .. workspace .. '/nowhere.py')
check(#harness.notices == 1 and harness.notices[1].message:match('nowhere%.py is not indexed: missing') ~= nil,
  ':Ragls explain says why a path is not indexed')

vim.cmd('Ragls status')
local status_lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
local status_text = table.concat(status_lines, '\n')
check(vim.api.nvim_buf_get_name(0) == 'ragls://status' and status_lines[1] == '# ragls status', ':Ragls status opens the report')
check(status_text:match('| Files | %d+ |') ~= nil and status_text:match('| Generation | %d+, updated %d+ s ago |') ~= nil
  and status_text:match('| Watcher | watching %(%d+ watches%) |') ~= nil, 'with counts, age and watcher')
check(status_text:match('| Index on disk | %l+ %(') ~= nil and status_text:match('### Not indexed') ~= nil,
  'and the stored index and the skip reasons:\n' .. status_text)
vim.cmd.close()
local cache_line = require('ragls.commands').cache_text({
  state = 'reader', bytesOnDisk = 2411724, storedGeneration = 4, ageSeconds = 150,
  detail = 'process 77 owns it',
})
check(cache_line == 'index on disk: reader (generation 4, 2.3 MB, written 3 min ago): process 77 owns it',
  'cache_text: ' .. cache_line)
check(require('ragls.commands').cache_text({ state = 'cold', bytesOnDisk = 300, storedGeneration = vim.NIL,
  ageSeconds = vim.NIL, detail = '' }) == 'index on disk: cold (nothing stored, 300 B)', 'cache_text of nothing stored')

vim.cmd('checkhealth ragls')
local report = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
check(report:match('OK') ~= nil and report:match('ERROR') == nil, ':checkhealth ragls reports OK')

-- A second project: its own session, searched from its buffers; the statusline adds both up.
local second = vim.fn.tempname()
vim.fn.mkdir(second .. '/.git', 'p')
vim.fn.writefile({ '# Ledger', '', 'The marmoset ledger closes at noon.' }, second .. '/notes.md')
vim.cmd.edit(second .. '/notes.md')
check(vim.wait(30000, function()
  local sessions = ragls.sessions_sync() or {}
  return #sessions == 2 and sessions[2].generation >= 1
end, 50), 'a file of a second project adds it as a second workspace folder, indexed')
local in_second = ragls.search_sync('marmoset ledger') or {}
check(#in_second > 0 and in_second[1].metadata.file == 'notes.md', 'search from its buffer asks its session')
check(ragls.quickfix_items(in_second, ragls.session_root())[1].filename == vim.fs.joinpath(second, 'notes.md'),
  'and its quickfix items point into the second project')
local total = 0
for _, session in ipairs(ragls.sessions_sync() or {}) do
  total = total + session.chunkCount
end
check(vim.wait(5000, function()
  return ragls.status():match('^ragls: ' .. require('ragls.format').count(total) .. ' chunks') ~= nil
end, 20), 'the statusline counts both projects: ' .. ragls.status())
vim.cmd.edit(workspace .. '/src/auth.py')
local in_first = ragls.search_sync('marmoset ledger') or {}
check(#in_first == 0 or in_first[1].metadata.file ~= 'notes.md', 'the first project does not see the second one')

-- A missing path is "missing" wherever it is named from: another open project, or a folder
-- reached through a symbolic link (the daemon's roots are resolved).
local function explained(path)
  harness.clear_notices()
  vim.cmd('Ragls explain ' .. path)
  return #harness.notices == 1 and harness.notices[1].message or vim.inspect(harness.notices)
end
local other = explained(second .. '/missing.md')
check(other:match('missing%.md is not indexed: missing %(no such file%)$') ~= nil,
  ':Ragls explain of a missing path in the other project: ' .. other)
local link = vim.fn.tempname()
vim.uv.fs_symlink(workspace, link)
local linked = explained(link .. '/src/nowhere.py')
check(linked:match('src/nowhere%.py is not indexed: missing %(no such file%)$') ~= nil,
  ':Ragls explain of a missing path through a symbolic link: ' .. linked)

harness.clear_notices()
local crashed = ragls.client()
crashed.rpc.terminate() -- the daemon dies (SIGTERM), as a crash or a framing exit would end it
check(vim.wait(30000, function()
  local now = ragls.client()
  return now ~= nil and now.id ~= crashed.id and now.initialized
end, 50), 'a daemon that exits on its own is started again')
check(#harness.notices > 0 and harness.notices[1].message:match('the daemon exited .*restarting it') ~= nil,
  'and the user is told: ' .. (harness.notices[1] and harness.notices[1].message or 'nothing'))
check(vim.wait(30000, function()
  local results = ragls.search_sync('verify the password')
  return results ~= nil and #results > 0
end, 100), 'the restarted daemon answers')

-- After the restart the daemon's default session (a buffer outside any project names none) need
-- not be the project Neovim started it for: the quickfix paths follow the answer's session.
vim.cmd.enew()
local answered = nil
check(vim.wait(30000, function()
  local results, _, _, session = ragls.search_sync('marmoset ledger verify password')
  answered = session
  return results ~= nil and #results > 0
end, 100), 'after the restart a buffer outside the projects gets answers')
vim.fn.setqflist({}, 'r')
vim.cmd('Ragls search marmoset ledger verify password')
check(vim.wait(10000, function() return #vim.fn.getqflist() > 0 end, 20), 'and :Ragls search fills the quickfix list')
local missing = {}
for _, item in ipairs(vim.fn.getqflist()) do
  local name = vim.api.nvim_buf_get_name(item.bufnr)
  if vim.fn.filereadable(name) == 0 then
    table.insert(missing, name)
  end
end
check(#missing == 0, ('its quickfix paths exist (answered by %s): %s'):format(tostring(answered),
  table.concat(missing, ', ')))
vim.cmd.cclose()

local client = ragls.client()
client:stop()
check(vim.wait(10000, function() return client:is_stopped() end, 20), 'the daemon stops cleanly')
harness.finish()

-- Headless Neovim against tests.e2e.gated_serve (a daemon whose first index stops, 100 files in,
-- until this script writes the `release` file beside the project; its partial generations hold
-- 1, 2, 4, ..., 64 files):
--   nvim --clean --headless --cmd 'set rtp+=PLUGIN' -l tests/test_partial.lua PYTHON WORKSPACE
-- Partial answers must say so in the Lua API, :Ragls search, :Ragls status and the statusline.
local python, workspace = arg[1], arg[2]
local harness = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'harness.lua'))
local check = harness.check

local ragls = require('ragls')
ragls.setup({ cmd = { python, '-m', 'tests.e2e.gated_serve' }, init_options = { debounceMs = 50 } })
vim.cmd.edit(workspace .. '/pkg/m003.py')
check(vim.wait(30000, function()
  local status = ragls.client() and ragls.status_sync()
  return type(status) == 'table' and status.partial == true and status.fileCount == 64
end, 50), 'the partial generation of the first 64 files is live')

local results, err, _, _, partial = ragls.search_sync('marsupial003')
check(err == nil and results ~= nil and results[1].metadata.file == 'pkg/m003.py', 'a read file is found: ' .. vim.inspect(err))
check(type(partial) == 'table' and partial.indexedFiles == 64 and partial.totalFiles == 300,
  'the Lua API says the answer is partial: ' .. vim.inspect(partial))

harness.clear_notices()
vim.cmd('Ragls search marsupial003')
check(vim.wait(10000, function()
  return vim.fn.getqflist({ title = 1 }).title == 'ragls: marsupial003 (partial results: indexing 21% (64/300 files read))'
end, 20), ':Ragls search says so in the quickfix title: ' .. vim.fn.getqflist({ title = 1 }).title)

vim.cmd('Ragls status')
local report = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
check(report:match('| State | indexing %d+%% %([%d,]+/300 files%), answers from the first 64 files %(partial%) |') ~= nil,
  ':Ragls status says how far it got and that answers are partial:\n' .. report)
check(ragls.status():match('^ragls: indexing %d+%%$') ~= nil, 'the statusline says indexing N%: ' .. ragls.status())

vim.fn.writefile({}, vim.fs.joinpath(vim.fs.dirname(workspace), 'release'))
check(vim.wait(30000, function() return ragls._state.updates > 0 end, 20), 'the whole generation is live')
local _, _, _, _, whole = ragls.search_sync('marsupial250')
check(whole == nil, 'and its answers are not partial')

local client = ragls.client()
client:stop()
check(vim.wait(10000, function() return client:is_stopped() end, 20), 'the daemon stops cleanly')
harness.finish()

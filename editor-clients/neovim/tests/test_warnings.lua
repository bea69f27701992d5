-- Headless Neovim against a daemon whose BM25 is capped below the corpus:
--   nvim --clean --headless --cmd 'set rtp+=PLUGIN' -l tests/test_warnings.lua PYTHON WORKSPACE
-- The coverage warning must reach the Lua API, :Ragls search, :Ragls status and the statusline.
local python, workspace = arg[1], arg[2]
local harness = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'harness.lua'))
local check = harness.check

local ragls = require('ragls')
ragls.setup({
  cmd = { python, '-m', 'ragls', 'serve' },
  init_options = { debounceMs = 50, pipeline = 'seed', bm25 = { maxDocuments = 1 } },
})
vim.fn.writefile({ '{"cells": [}' }, workspace .. '/broken.ipynb') -- a file the run cannot read
vim.cmd.edit(workspace .. '/src/auth.py')
check(vim.wait(30000, function() return ragls._state.updates > 0 end, 20), 'the first generation is live')

local results, err, warnings = ragls.search_sync('password')
check(err == nil and results ~= nil, 'search answers: ' .. tostring(err))
check(#warnings == 1 and warnings[1]:match('^BM25 covers 1 of %d+ chunks') ~= nil,
  'the Lua API returns the coverage warning: ' .. vim.inspect(warnings))

harness.clear_notices()
vim.cmd('Ragls search password')
check(vim.wait(10000, function()
  for _, notice in ipairs(harness.notices) do
    if notice.level == vim.log.levels.WARN and notice.message:match('BM25 covers 1 of') then
      return true
    end
  end
  return false
end, 20), ':Ragls search shows the warning')

vim.cmd('Ragls status')
local report = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
check(report:match('### Problems\n\n%- 1 file%(s%) could not be read[^\n]*\n%- BM25 covers 1 of') ~= nil,
  ':Ragls status shows it:\n' .. report)
check(report:match('### Files that could not be read\n\n%- broken%.ipynb: notebook is not valid JSON') ~= nil
  and report:match(':Ragls status') == nil, 'with the unreadable file, and without sending the reader to itself')
check(vim.wait(5000, function() return ragls.status():match(' · 2 warnings$') ~= nil end, 20),
  'and the statusline counts both: ' .. ragls.status())

local client = ragls.client()
client:stop()
check(vim.wait(10000, function() return client:is_stopped() end, 20), 'the daemon stops cleanly')
harness.finish()

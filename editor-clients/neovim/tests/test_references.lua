-- Headless Neovim, references by name (rag/references) through the plugin:
--   nvim --clean --headless --cmd 'set rtp+=PLUGIN' -l tests/test_references.lua PYTHON WORKSPACE
-- The workspace (tests/clients/test_neovim.py) defines `reconcile_ledger` in Python and Lua and
-- calls it from Python and Lua: :RaglsReferences fills the quickfix list with the definitions
-- first, then each call with the definition it is inside.
local python, workspace = arg[1], arg[2]
local harness = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'harness.lua'))
local check = harness.check

local ragls = require('ragls')
check(vim.fn.exists(':RaglsReferences') == 2, 'plugin/ragls.lua defines :RaglsReferences')
ragls.setup({ cmd = { python, '-m', 'ragls', 'serve' }, init_options = { debounceMs = 50 } })
vim.cmd.edit(workspace .. '/billing/report.py')
check(vim.wait(15000, function()
  local client = ragls.client()
  return client ~= nil and client.initialized
end, 20), 'the daemon started for the project root')
check(vim.wait(30000, function() return ragls._state.updates > 0 end, 20), 'the first generation is live')

local root = vim.uv.fs_realpath(workspace)
local function places()
  local out = {}
  for _, item in ipairs(vim.fn.getqflist()) do
    local name = vim.uv.fs_realpath(vim.fn.bufname(item.bufnr)) or vim.fn.bufname(item.bufnr)
    table.insert(out, ('%s:%d:%d %s'):format(vim.fs.relpath(root, name) or name, item.lnum, item.col, item.text))
  end
  return out
end

vim.fn.setqflist({}, 'r')
vim.cmd('RaglsReferences reconcile_ledger')
check(vim.wait(10000, function() return #vim.fn.getqflist() > 0 end, 20), ':RaglsReferences {name} fills the quickfix list')
local found = places()
print('# ' .. table.concat(found, '\n# '))
check(found[1] ~= nil and found[1]:match('^billing/ledger%.py:4:5 definition: function reconcile_ledger') ~= nil,
  'the Python definition first, at its line and column: ' .. tostring(found[1]))
check(found[2] ~= nil and found[2]:match('^lua/ledger%.lua:3:') ~= nil and found[2]:match('definition') ~= nil,
  'then the Lua definition: ' .. tostring(found[2]))
local calls = table.concat(vim.list_slice(found, 3), '\n')
check(calls:match('billing/report%.py:5:12 in monthly: return reconcile_ledger%(entries%)') ~= nil,
  'the Python call, with the function it is in and its line')
check(calls:match('lua/main%.lua:3:') ~= nil, 'the Lua call')
check(#found == 4, 'two definitions and two calls: ' .. #found)
check(vim.fn.getqflist({ title = 1 }).title == 'ragls references: reconcile_ledger (by name)', 'the title says it is by name')

-- No argument: the identifier under the cursor (line 5 of report.py is `    return reconcile_ledger(entries)`).
vim.cmd.cclose()
vim.cmd.edit(workspace .. '/billing/report.py')
vim.api.nvim_win_set_cursor(0, { 5, 14 })
vim.fn.setqflist({}, 'r')
vim.cmd('RaglsReferences')
check(vim.wait(10000, function() return #vim.fn.getqflist() > 0 end, 20), ':RaglsReferences without a name uses the cursor')
check(#places() == 4 and places()[1]:match('^billing/ledger%.py:4:') ~= nil, 'and finds the same places')

-- The Lua API.
local answer, err = ragls.references_sync('reconcile_ledger')
check(err == nil and answer ~= nil and #answer.definitions == 2, 'references_sync: ' .. tostring(err))
harness.clear_notices()
vim.fn.setqflist({}, 'r')
vim.cmd('Ragls references no_such_name_anywhere')
check(vim.wait(10000, function() return #harness.notices > 0 end, 20)
  and harness.notices[1].message:match('no references to no_such_name_anywhere') ~= nil, 'an unknown name is said')

local client = assert(ragls.client())
client:stop()
check(vim.wait(10000, function() return client:is_stopped() end, 20), 'the daemon stops cleanly')
harness.finish()

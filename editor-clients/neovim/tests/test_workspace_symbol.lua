-- Headless Neovim, the standard `workspace/symbol` request through the plugin's client:
--   nvim --clean --headless --cmd 'set rtp+=PLUGIN' -l tests/test_workspace_symbol.lua PYTHON WORKSPACE
-- The workspace (tests/clients/test_neovim.py) defines `reconcile_ledger` in Python, Go, Lua and
-- TypeScript and calls it from a Python and a Go file: vim.lsp.buf.workspace_symbol() must list
-- the four definitions, each at its line, before any of the calls.
local python, workspace = arg[1], arg[2]
local harness = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'harness.lua'))
local check = harness.check

local ragls = require('ragls')
ragls.setup({ cmd = { python, '-m', 'ragls', 'serve' }, init_options = { debounceMs = 50 } })
vim.cmd.edit(workspace .. '/billing/ledger.py')
check(vim.wait(15000, function()
  local client = ragls.client()
  return client ~= nil and client.initialized
end, 20), 'the daemon started for the project root')
check(vim.wait(30000, function() return ragls._state.updates > 0 end, 20), 'the first generation is live')
local client = assert(ragls.client())
check(client:supports_method('workspace/symbol'), 'the client knows the daemon answers workspace/symbol')

--- vim.lsp.buf.workspace_symbol(query) as a user runs it; its quickfix items (on_list), or nil.
local function workspace_symbol(query)
  local answer
  vim.lsp.buf.workspace_symbol(query, { on_list = function(list) answer = list end })
  vim.wait(10000, function() return answer ~= nil end, 20)
  return answer
end

-- A prefix of the name, as a user types it: every spelling matches at the same tier, and
-- within a tier definitions come before references.
local list = workspace_symbol('reconcile')
check(list ~= nil, 'vim.lsp.buf.workspace_symbol() answers')
local items = list and list.items or {}
local function relative(item)
  return vim.fs.relpath(vim.fs.normalize(vim.uv.fs_realpath(workspace)), vim.uv.fs_realpath(item.filename) or item.filename)
end
local shown = {}
for i, item in ipairs(items) do
  shown[i] = ('%s:%d %s'):format(relative(item), item.lnum, item.text)
end
print('# ' .. table.concat(shown, '\n# '))

-- Definitions: the symbol's kind in the text ("[Function] reconcile_ledger"); references carry
-- their use as the container ("... call reference"), which Neovim shows after the name.
local function is_reference(item)
  return item.text:match('reference') ~= nil
end
local definitions, first_reference, last_definition = {}, nil, 0
for i, item in ipairs(items) do
  if is_reference(item) then
    first_reference = first_reference or i
  else
    definitions[relative(item)] = item.lnum
    last_definition = i
  end
end
check(definitions['billing/ledger.py'] == 4, 'the Python definition, at its line: ' .. tostring(definitions['billing/ledger.py']))
check(definitions['svc/ledger.go'] == 3, 'the Go definition, at its line: ' .. tostring(definitions['svc/ledger.go']))
check(definitions['lua/ledger.lua'] == 3, 'the Lua definition, at its line: ' .. tostring(definitions['lua/ledger.lua']))
check(definitions['web/ledger.ts'] == 1, 'the TypeScript definition, at its line: ' .. tostring(definitions['web/ledger.ts']))
check(first_reference ~= nil, 'the calls are listed too')
check(first_reference ~= nil and last_definition < first_reference, 'every definition comes before every call')

-- One query, every language: the client's own request gives the same answer.
local response = client:request_sync('workspace/symbol', { query = 'ReconcileLedger' }, 10000)
local names = {}
for _, symbol in ipairs(response and response.result or {}) do
  names[symbol.name] = true
end
check(names.ReconcileLedger and names.reconcile_ledger and names.reconcileLedger,
  'a whole name finds the Go, the snake_case and the camelCase names: ' .. vim.inspect(vim.tbl_keys(names)))
local top = response and response.result and response.result[1] or {}
check(top.name == 'ReconcileLedger' and top.location.uri:match('svc/ledger%.go$') ~= nil,
  'the exact name first: ' .. tostring(top.name))

-- The default handler (no on_list) fills the quickfix list, as `:lua vim.lsp.buf.workspace_symbol()` does.
vim.fn.setqflist({}, 'r')
vim.lsp.buf.workspace_symbol('reconcile')
check(vim.wait(10000, function() return #vim.fn.getqflist() == #items end, 20), 'without on_list the quickfix list is filled')
check(vim.fn.getqflist({ title = 1 }).title == "Symbols matching 'reconcile'", 'titled with the query')

client:stop()
check(vim.wait(10000, function() return client:is_stopped() end, 20), 'the daemon stops cleanly')
harness.finish()

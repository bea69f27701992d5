-- Headless Neovim, the `vim.lsp.enable('ragls')` route (no setup()):
--   nvim --clean --headless --cmd 'set rtp+=PLUGIN' -l tests/test_enable.lua PYTHON WORKSPACE
-- The :Ragls commands, the Lua API and the statusline helper must work on the client it starts.
local python, workspace = arg[1], arg[2]
local harness = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'harness.lua'))
local check = harness.check

vim.lsp.config('ragls', { cmd = { python, '-m', 'ragls', 'serve' }, init_options = { debounceMs = 50 } })
vim.lsp.enable('ragls')
vim.cmd.edit(workspace .. '/src/auth.py')
local ragls = require('ragls')
check(vim.wait(15000, function()
  local client = ragls.client()
  return client ~= nil and client.initialized
end, 20), 'the client vim.lsp.enable started is adopted')
check(vim.wait(30000, function() return ragls._state.updates > 0 end, 20), 'its index updates reach the plugin')
check(ragls.status():match('^ragls: %d+ chunks · %d+ s ago$') ~= nil, 'statusline helper: ' .. ragls.status())

vim.cmd('Ragls search verify the password')
check(vim.wait(10000, function() return #vim.fn.getqflist() > 0 end, 20), ':Ragls search works on this route')

local client = ragls.client()
client:stop()
check(vim.wait(10000, function() return client:is_stopped() end, 20), 'the daemon stops cleanly')
harness.finish()

--- :checkhealth ragls
local M = {}

function M.check()
  vim.health.start('ragls')
  -- 0.11: vim.validate(name, value, validator, message), client:stop(), vim.lsp.enable.
  if vim.fn.has('nvim-0.11') == 1 then
    vim.health.ok('Neovim ' .. tostring(vim.version()))
  else
    vim.health.error('Neovim 0.11 or newer is needed')
  end
  local config = require('ragls.config')
  local cmd, err = config.daemon_cmd()
  if cmd == nil then
    vim.health.error(err, {
      'From a ragls checkout: `pipx install .` (puts `ragls` in ~/.local/bin), or `pip install .` into'
        .. ' the virtual environment you start Neovim from',
      'or point the plugin at it: require("ragls").setup({ cmd = { "/path/to/ragls/.venv/bin/ragls", "serve" } })',
    })
    return
  end
  if vim.fn.executable(cmd[1]) ~= 1 then
    vim.health.error(('the daemon command %q is not executable'):format(cmd[1]), { config.INSTALL_ADVICE })
    return
  end
  vim.health.ok(('the daemon: %s%s'):format(table.concat(cmd, ' '), config.cmd_set and ' (from cmd)' or ''))
  local version_cmd = vim.deepcopy(cmd)
  if version_cmd[#version_cmd] == 'serve' then
    version_cmd[#version_cmd] = '--version'
  else
    table.insert(version_cmd, '--version')
  end
  local ok, result = pcall(function()
    return vim.system(version_cmd, { text = true }):wait(10000)
  end)
  if not ok then
    vim.health.error('running ' .. table.concat(version_cmd, ' ') .. ' failed: ' .. tostring(result))
  elseif result.code ~= 0 then
    vim.health.error(('%s exited with %s: %s'):format(table.concat(version_cmd, ' '), tostring(result.code),
      vim.trim((result.stderr or '') .. (result.stdout or ''))))
  else
    vim.health.ok('daemon: ' .. vim.trim(result.stdout))
  end
  local client = require('ragls').client()
  if client ~= nil then
    vim.health.ok(('daemon running (client %d), %s'):format(client.id, require('ragls').status()))
  else
    vim.health.info('no daemon running yet (it starts when a file inside a project is opened)')
  end
end

return M

--- Options of the ragls plugin: defaults, merging and validation.
local M = {}

---@class ragls.Options
---@field cmd string[]            command that starts the daemon
---@field root_markers string[]   files or folders that mark a project root (vim.fs.root)
---@field init_options table      sent as initializationOptions (see protocol.md, section 7)
---@field top_k integer           results per search (1-100)
---@field results 'quickfix'|'select'  where :Ragls search shows its results
---@field register string         register that receives :Ragls context prompts
---@field open_quickfix boolean   open the quickfix window after a search
---@field timeout_ms integer      how long synchronous API calls wait for the daemon
M.defaults = {
  cmd = { 'ragls', 'serve' },
  root_markers = { '.git' },
  init_options = vim.empty_dict(),
  top_k = 10,
  results = 'quickfix',
  register = '"',
  open_quickfix = true,
  timeout_ms = 10000,
}

M.options = vim.deepcopy(M.defaults)

local function is_list_of_strings(value)
  if type(value) ~= 'table' or #value == 0 then
    return false
  end
  for _, item in ipairs(value) do
    if type(item) ~= 'string' or item == '' then
      return false
    end
  end
  return true
end

--- Merge user options over the defaults and validate them; errors name the option.
---@param user table|nil
---@return ragls.Options
function M.set(user)
  local merged = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), user or {})
  vim.validate('cmd', merged.cmd, is_list_of_strings, 'a non-empty list of strings')
  vim.validate('root_markers', merged.root_markers, is_list_of_strings, 'a non-empty list of strings')
  vim.validate('init_options', merged.init_options, 'table')
  vim.validate('top_k', merged.top_k, function(v)
    return type(v) == 'number' and v >= 1 and v <= 100 and math.floor(v) == v
  end, 'an integer from 1 to 100')
  vim.validate('results', merged.results, function(v)
    return v == 'quickfix' or v == 'select'
  end, "'quickfix' or 'select'")
  vim.validate('register', merged.register, function(v)
    return type(v) == 'string' and #v == 1
  end, 'a register name')
  vim.validate('open_quickfix', merged.open_quickfix, 'boolean')
  vim.validate('timeout_ms', merged.timeout_ms, 'number')
  M.options = merged
  M.cmd_set = user ~= nil and user.cmd ~= nil
  return merged
end

--- What to tell a user whose daemon cannot be found (the VS Code extension says the same).
M.INSTALL_ADVICE = 'Install it with `pipx install <ragls checkout>` (or `pip install <ragls checkout>`'
  .. ' into the active virtual environment), or set cmd:'
  .. ' require("ragls").setup({ cmd = { "/path/to/.venv/bin/ragls", "serve" } })'

--- The daemon's command line. A `cmd` the user set is used as given. Otherwise `ragls` is looked
--- for in `$VIRTUAL_ENV/bin`, on PATH, then in pipx's `~/.local/bin` (often missing from a
--- desktop session's PATH). Unlike the VS Code extension, a project's own `.venv` is not
--- searched: Neovim has no workspace trust, and opening a file must not run a program the
--- repository ships.
---@return string[]|nil cmd
---@return string|nil error  where it looked and how to install, when nothing was found
function M.daemon_cmd()
  local cmd = M.options.cmd
  if M.cmd_set then
    return cmd
  end
  local name = cmd[1]
  local candidates, looked = {}, {}
  local venv = vim.env.VIRTUAL_ENV
  if venv ~= nil and venv ~= '' then
    table.insert(candidates, vim.fs.joinpath(venv, 'bin', name))
    table.insert(looked, vim.fs.joinpath(venv, 'bin'))
  end
  local on_path = vim.fn.exepath(name)
  if on_path ~= '' then
    table.insert(candidates, on_path)
  end
  table.insert(looked, 'PATH')
  local home = vim.env.HOME
  if home ~= nil and home ~= '' then
    table.insert(candidates, vim.fs.joinpath(home, '.local', 'bin', name))
    table.insert(looked, vim.fs.joinpath(home, '.local', 'bin'))
  end
  for _, candidate in ipairs(candidates) do
    if vim.fn.executable(candidate) == 1 then
      local found = vim.deepcopy(cmd)
      found[1] = candidate
      return found
    end
  end
  return nil, ('the daemon (%s) was not found; looked in %s. %s'):format(name, table.concat(looked, ', '),
    M.INSTALL_ADVICE)
end

return M

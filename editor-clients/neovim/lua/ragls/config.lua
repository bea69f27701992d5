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
  return merged
end

return M

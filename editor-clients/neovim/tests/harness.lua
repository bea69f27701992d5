-- Shared by the headless test scripts: a check() that counts failures, and vim.notify recorded
-- (headless Neovim would turn an ERROR-level echo into a Lua error).
local M = { failures = 0, notices = {} }

function M.check(condition, message)
  print((condition and 'ok   - ' or 'FAIL - ') .. message)
  if not condition then
    M.failures = M.failures + 1
  end
end

function M.clear_notices()
  M.notices = {}
end

vim.notify = function(message, level)
  table.insert(M.notices, { message = message, level = level })
  print('notify: ' .. message)
end

--- Exit with 1 if any check failed.
function M.finish()
  os.exit(M.failures == 0 and 0 or 1)
end

return M

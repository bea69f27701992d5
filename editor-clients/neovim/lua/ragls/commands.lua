--- :Ragls {search|context|index|explain|references|status} — one user command with subcommands and completion.
local M = {}

local function ragls()
  return require('ragls')
end

local function error_message(err)
  vim.notify('ragls: ' .. (type(err) == 'table' and (err.message or vim.inspect(err)) or tostring(err)),
    vim.log.levels.ERROR)
end

local function warn(warnings)
  if warnings ~= nil and #warnings > 0 then
    vim.notify('ragls: ' .. table.concat(warnings, '; '), vim.log.levels.WARN)
  end
end

--- `note`: said in the title when the answer is partial (a first index still under way).
local function show_results(query, results, session, note)
  local config = require('ragls.config').options
  local title = 'ragls: ' .. query .. (note and (' (' .. note .. ')') or '')
  local items = ragls().quickfix_items(results, ragls().session_folder(session) or ragls().session_root())
  if #items == 0 then
    vim.notify('ragls: no results for ' .. query, vim.log.levels.INFO)
  end
  if config.results == 'select' then
    vim.ui.select(items, {
      prompt = title,
      format_item = function(item)
        return ('%s:%d  %s'):format(vim.fn.fnamemodify(item.filename or '', ':.'), item.lnum, item.text)
      end,
    }, function(choice)
      if choice ~= nil and choice.filename ~= nil then
        vim.cmd.edit(vim.fn.fnameescape(choice.filename))
        vim.api.nvim_win_set_cursor(0, { choice.lnum, 0 })
      end
    end)
    return
  end
  vim.fn.setqflist({}, ' ', { title = title, items = items })
  if config.open_quickfix and #items > 0 then
    vim.cmd.copen()
  end
end

M.subcommands = {
  search = function(args)
    if args == '' then
      error_message('usage: :Ragls search {query}')
      return
    end
    ragls().search(args, nil, function(err, results, warnings, session, partial)
      vim.schedule(function()
        if err then
          error_message(err)
        else
          warn(warnings)
          local note = partial and require('ragls.format').partial_note({ partial = true, progress = partial })
          if note ~= nil then
            vim.notify('ragls: ' .. note, vim.log.levels.INFO)
          end
          show_results(args, results, session, note)
        end
      end)
    end)
  end,
  context = function(args)
    if args == '' then
      error_message('usage: :Ragls context {question}')
      return
    end
    ragls().build_context_prompt(args, nil, function(err, prompt, warnings)
      vim.schedule(function()
        if err then
          error_message(err)
          return
        end
        warn(warnings)
        local register = require('ragls.config').options.register
        vim.fn.setreg(register, prompt)
        local buffer = vim.api.nvim_create_buf(false, true)
        vim.bo[buffer].bufhidden = 'wipe'
        vim.api.nvim_buf_set_lines(buffer, 0, -1, false, vim.split(prompt, '\n', { plain = true }))
        vim.bo[buffer].filetype = 'xml'
        vim.api.nvim_buf_set_name(buffer, 'ragls://context/' .. buffer)
        vim.cmd.split()
        vim.api.nvim_win_set_buf(0, buffer)
        vim.notify(('ragls: context prompt in register %s'):format(register), vim.log.levels.INFO)
      end)
    end)
  end,
  index = function(_, bang)
    ragls().index(bang, function(err, status)
      vim.schedule(function()
        if err then
          error_message(err)
        else
          vim.notify(('ragls: indexed %d files, %d chunks'):format(status.fileCount, status.chunkCount))
        end
      end)
    end)
  end,
  explain = function(args)
    local path = args ~= '' and vim.fn.fnamemodify(args, ':p') or vim.api.nvim_buf_get_name(0)
    local found, err = ragls().explain_sync(path)
    if err then
      error_message(err)
      return
    end
    if found.indexed then
      vim.notify(('ragls: %s is indexed (%d chunks)'):format(found.path, found.chunks), vim.log.levels.INFO)
    else
      local detail = (found.detail or '') ~= '' and (' (' .. found.detail .. ')') or ''
      vim.notify(('ragls: %s is not indexed: %s%s'):format(found.path, found.reason, detail), vim.log.levels.INFO)
    end
  end,
  references = function(args)
    M.references(args)
  end,
  status = function()
    local statuses, err = ragls().sessions_sync()
    if err then
      error_message(err)
      return
    end
    M.show_report(require('ragls.format').report(statuses, os.time()))
  end,
}

--- :RaglsReferences [name] / :Ragls references [name]: the uses of ``name`` (default: the
--- identifier under the cursor) in the quickfix list, the definitions first.
function M.references(name)
  local label = name ~= '' and name or vim.fn.expand('<cword>')
  ragls().references(name ~= '' and name or nil, nil, function(err, answer)
    vim.schedule(function()
      if err then
        error_message(err)
        return
      end
      local items = ragls().reference_items(answer)
      local shown = answer.name or label
      local title = ('ragls references: %s (by name)'):format(shown)
      if answer.truncated then
        title = title .. (' (the first %d of %d references)'):format(#items - #answer.definitions, answer.total)
      end
      vim.fn.setqflist({}, ' ', { title = title, items = items })
      if #items == 0 then
        vim.notify('ragls: no references to ' .. shown, vim.log.levels.INFO)
      elseif require('ragls.config').options.open_quickfix then
        vim.cmd.copen()
      end
    end)
  end)
end

--- The stored index in one phrase (kept here for callers of the earlier API).
M.cache_text = function(cache)
  return require('ragls.format').cache_text(cache)
end

--- Show ``lines`` in the `ragls://status` scratch buffer (reused), in a split unless shown.
function M.show_report(lines)
  local buffer = vim.fn.bufnr('ragls://status')
  if buffer == -1 then
    buffer = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buffer, 'ragls://status')
    vim.bo[buffer].bufhidden = 'hide'
    vim.bo[buffer].filetype = 'markdown'
  end
  vim.bo[buffer].modifiable = true
  vim.api.nvim_buf_set_lines(buffer, 0, -1, false, lines)
  vim.bo[buffer].modifiable = false
  local window = vim.fn.bufwinid(buffer)
  if window == -1 then
    vim.cmd.split()
    vim.api.nvim_win_set_buf(0, buffer)
  else
    vim.api.nvim_set_current_win(window)
  end
end

function M.run(opts)
  local name, rest = opts.args:match('^(%S+)%s*(.*)$')
  local bang = opts.bang
  if name ~= nil and name:sub(-1) == '!' then -- `:Ragls index!`, as documented (`:Ragls! index` too)
    name, bang = name:sub(1, -2), true
  end
  local handler = name and M.subcommands[name]
  if handler == nil then
    error_message('unknown subcommand ' .. vim.inspect(name or '') .. '; use search, context, index, explain, references or status')
    return
  end
  handler(rest or '', bang)
end

function M.complete(arg_lead, cmdline)
  if cmdline:match('^%s*%S+%s+%S+%s') then
    return {}
  end
  local names = vim.tbl_keys(M.subcommands)
  table.sort(names)
  return vim.tbl_filter(function(name)
    return name:find(arg_lead, 1, true) == 1
  end, names)
end

return M

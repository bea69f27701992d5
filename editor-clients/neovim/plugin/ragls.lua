-- ragls: workspace retrieval for Neovim. Loads lazily: nothing is required until used.
if vim.g.loaded_ragls then
  return
end
vim.g.loaded_ragls = true

vim.api.nvim_create_user_command('Ragls', function(opts)
  require('ragls.commands').run(opts)
end, {
  nargs = '+',
  bang = true,
  desc = 'ragls: search, context, index[!], explain, references, status',
  complete = function(arg_lead, cmdline)
    return require('ragls.commands').complete(arg_lead, cmdline)
  end,
})

-- Uses of a name (default: the identifier under the cursor) by name, for languages whose own
-- server gives no references.
vim.api.nvim_create_user_command('RaglsReferences', function(opts)
  require('ragls.commands').references(opts.args)
end, { nargs = '?', desc = 'ragls: references by name (quickfix)' })

-- <Plug> mappings only; map them yourself, e.g.
--   vim.keymap.set('n', '<leader>rs', '<Plug>(ragls-search)')
vim.keymap.set('n', '<Plug>(ragls-search)', function()
  vim.ui.input({ prompt = 'ragls search: ' }, function(query)
    if query and query ~= '' then
      require('ragls.commands').subcommands.search(query)
    end
  end)
end, { desc = 'ragls: search the workspace' })
vim.keymap.set('n', '<Plug>(ragls-context)', function()
  vim.ui.input({ prompt = 'ragls context for: ' }, function(question)
    if question and question ~= '' then
      require('ragls.commands').subcommands.context(question)
    end
  end)
end, { desc = 'ragls: copy a context prompt' })
vim.keymap.set('x', '<Plug>(ragls-search-selection)', function()
  local lines = vim.fn.getregion(vim.fn.getpos('v'), vim.fn.getpos('.'), { type = vim.fn.mode() })
  require('ragls.commands').subcommands.search(table.concat(lines, ' '))
end, { desc = 'ragls: search for the selection' })

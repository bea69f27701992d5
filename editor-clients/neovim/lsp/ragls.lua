-- A vim.lsp.Config for Neovim 0.11+: `vim.lsp.enable('ragls')` starts the daemon with the
-- defaults. require('ragls').setup() does the same and adds the commands' workspace handling.
---@type vim.lsp.Config
return {
  cmd = { 'ragls', 'serve' },
  root_markers = { '.git' },
  init_options = vim.empty_dict(),
}

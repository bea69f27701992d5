-- A vim.lsp.Config for Neovim 0.11+: `vim.lsp.enable('ragls')` starts the daemon with the
-- defaults (override with vim.lsp.config('ragls', {...})). The :Ragls commands, the Lua API and
-- the statusline helper adopt the client it starts; require('ragls').setup() is the other
-- route, which also adds workspace folders as you open files of other projects.
-- The daemon is looked for as the plugin looks for it (require('ragls.config').daemon_cmd:
-- $VIRTUAL_ENV, PATH, ~/.local/bin), and a missing one is reported with the install advice.
---@type vim.lsp.Config
return {
  cmd = function(dispatchers)
    local cmd, err = require('ragls.config').daemon_cmd()
    if cmd == nil then
      error('ragls: ' .. err, 0)
    end
    return vim.lsp.rpc.start(cmd, dispatchers)
  end,
  root_markers = { '.git' },
  init_options = vim.empty_dict(),
  handlers = {
    ['rag/indexUpdated'] = function(err, result, ctx)
      require('ragls').on_index_updated(err, result, ctx)
    end,
  },
}

"""Session orchestration: the workspace layer's registry of sessions, each session's index
thread and the debouncing of watcher changes."""

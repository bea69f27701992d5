#!/usr/bin/env bash
# Back up a directory to a dated archive and prune old archives.
set -euo pipefail

readonly BACKUP_DIR="${BACKUP_DIR:-/var/backups/app}"
readonly KEEP_DAYS="${KEEP_DAYS:-14}"
VERBOSE=0

log() {
  if [[ "$VERBOSE" -eq 1 ]]; then
    printf '%s %s\n' "$(date -u +%FT%TZ)" "$*" >&2
  fi
}

die() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}

usage() {
  cat <<USAGE
usage: $(basename "$0") [-v] SOURCE
  -v  verbose output
USAGE
}

function archive_name {
  local source="$1"
  printf '%s/%s-%s.tar.gz' "$BACKUP_DIR" "$(basename "$source")" "$(date +%Y%m%d-%H%M%S)"
}

function make_archive() {
  local source="$1" target
  target="$(archive_name "$source")"
  mkdir -p "$BACKUP_DIR"
  log "archiving $source to $target"
  tar -czf "$target" -C "$(dirname "$source")" "$(basename "$source")"
  echo "$target"
}

prune_old() {
  local count=0
  while IFS= read -r -d '' file; do
    log "removing $file"
    rm -f -- "$file"
    count=$((count + 1))
  done < <(find "$BACKUP_DIR" -name '*.tar.gz' -mtime +"$KEEP_DAYS" -print0)
  log "pruned $count archives"
}

verify() {
  local archive="$1"
  tar -tzf "$archive" >/dev/null || die "corrupt archive: $archive"
}

main() {
  while getopts ":v" option; do
    case "$option" in
      v) VERBOSE=1 ;;
      *) usage; exit 2 ;;
    esac
  done
  shift $((OPTIND - 1))
  [[ $# -eq 1 ]] || { usage; exit 2; }
  [[ -d "$1" ]] || die "not a directory: $1"

  local archive
  archive="$(make_archive "$1")"
  verify "$archive"
  prune_old
  log "done"
}

main "$@"

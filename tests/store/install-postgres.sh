#!/usr/bin/env bash
# The PostgreSQL server binaries the team-store tests start a throwaway cluster with
# (tests/store/pgcluster.py): present, or installed from Debian's packages with apt-get when
# running as root. Otherwise the tests skip with a loud reason; this never fails the run.
set -uo pipefail
if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "pytest: installing Debian's postgresql (the team-store tests need initdb and pg_ctl)"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null) \
    || echo "pytest: could not install postgresql; the PostgreSQL store tests will be skipped" >&2
else
  echo "pytest: no PostgreSQL binaries; the PostgreSQL store tests will be skipped" \
       "(sudo apt-get install postgresql)" >&2
fi
exit 0

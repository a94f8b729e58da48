#!/bin/sh
# A hot-standby streaming replica of the `postgres` service. On its first start the
# data folder is empty: copy the primary with `pg_basebackup -R` (which also writes
# standby.signal and primary_conninfo, so the server starts as a standby), then run
# PostgreSQL. Later starts find the copy and resume streaming where they stopped.
# Needs PRIMARY_HOST, PGUSER and PGPASSWORD (a role allowed to replicate).
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  until pg_isready -h "$PRIMARY_HOST" -U "$PGUSER" -q; do sleep 1; done
  pg_basebackup -h "$PRIMARY_HOST" -U "$PGUSER" -D "$PGDATA" -R -X stream --checkpoint=fast
  chmod 0700 "$PGDATA"
fi
exec postgres -c hot_standby=on

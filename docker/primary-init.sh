#!/bin/sh
# Run once by the postgres image when it initialises the primary's data folder
# (/docker-entrypoint-initdb.d): let the replica service stream its WAL. The image's
# own pg_hba.conf admits "all" databases, which does not include replication.
set -eu
echo "host replication ${POSTGRES_USER} all scram-sha-256" >> "$PGDATA/pg_hba.conf"

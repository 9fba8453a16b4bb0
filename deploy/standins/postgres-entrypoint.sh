#!/bin/sh
# What the official postgres image's entrypoint does on a first start, in short: an empty PGDATA
# gets a cluster whose superuser is POSTGRES_USER with POSTGRES_PASSWORD, and the database
# POSTGRES_DB; clients on the network sign in with a password (scram-sha-256).
set -eu
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
user=${POSTGRES_USER:-postgres}
db=${POSTGRES_DB:-$user}
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }

mkdir -p "$PGDATA" /var/run/postgresql
chown postgres:postgres "$PGDATA" /var/run/postgresql
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}"
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  chown postgres "$pwfile"
  as_postgres "$bin/initdb" -D "$PGDATA" -U "$user" --pwfile="$pwfile" -E UTF8 \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo 'host all all all scram-sha-256' >>"$PGDATA/pg_hba.conf"
  if [ "$db" != postgres ]; then
    as_postgres "$bin/pg_ctl" -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    as_postgres "$bin/psql" -v ON_ERROR_STOP=1 -q -U "$user" -d postgres \
      -c "CREATE DATABASE \"$db\""
    as_postgres "$bin/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
  fi
  echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}'): initialized $PGDATA"
fi
if [ "${1:-}" = postgres ]; then
  shift
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$bin/postgres" -D "$PGDATA" \
    -c listen_addresses='*' "$@"
fi
exec "$@"

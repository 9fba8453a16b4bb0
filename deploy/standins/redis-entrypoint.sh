#!/bin/sh
# The official image builds Redis with protected mode off (its network is the container's);
# Debian's has it on, which refuses every client from another container without a password.
set -eu
if [ "${1:-}" = redis-server ]; then
  shift
  exec setpriv --reuid=redis --regid=redis --init-groups redis-server --protected-mode no "$@"
fi
exec "$@"

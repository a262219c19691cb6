#!/usr/bin/env bash
# Installs Debian's PostgreSQL server binaries when they are missing, for the team-store tests (they
# start their own throwaway cluster with initdb and pg_ctl, see test/fixtures/postgresServer.ts; the
# package's own cluster is not used). Idempotent. Without root or apt-get, says so and leaves the
# tests to skip with that reason.
set -euo pipefail

log() { echo "[ensurePostgres] $*"; }

if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1; then
  log "PostgreSQL server binaries present"
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  log "PostgreSQL is not installed and cannot be installed here (needs root and apt-get): the team-store tests will be skipped"
  exit 0
fi
log "installing postgresql with apt-get"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || log "apt-get update failed; trying the install with the lists there are"
apt-get install -y -qq --no-install-recommends postgresql >/dev/null
# The package starts a cluster of its own; the tests never use it.
service postgresql stop >/dev/null 2>&1 || true
log "installed: $(ls -d /usr/lib/postgresql/*/bin | tail -1)"

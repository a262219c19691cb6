#!/usr/bin/env bash
# One-command set-up of a fresh clone: the npm dependencies exactly as locked, then what the browser
# tests need from outside npm (Debian's chromium and ripgrep, and code-server for the end-to-end suite).
set -euo pipefail
cd "$(dirname "$0")/.."
npm ci --no-audit --no-fund
bash scripts/installCodeServer.sh
bash scripts/ensurePostgres.sh

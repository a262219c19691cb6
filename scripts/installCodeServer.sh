#!/usr/bin/env bash
# Installs what the end-to-end tests and `npm start` need, idempotently: Debian's chromium and ripgrep,
# and code-server 4.100.3 (VS Code 1.100.3, the last release for Node 20) into .vscode-test/code-server.
# Only the npm registry and Debian's packages are reachable, so code-server's install steps that would
# download from elsewhere (ripgrep's binary) are satisfied locally; see shared/REAL-VSCODE.md.
# With --packages-only it installs the Debian packages only (what `npm test` needs), not code-server.
# apt-get runs as root, or through `sudo -n` when that needs no password.
set -euo pipefail
packages_only=false
[ "${1:-}" = "--packages-only" ] && packages_only=true

CODE_SERVER_VERSION=4.100.3
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${ARBOR_CODE_SERVER_DIR:-$root/.vscode-test/code-server}"
marker="$dest/.installed-$CODE_SERVER_VERSION"

log() { echo "[installCodeServer] $*"; }

# Debian packages: the browser that drives VS Code, the search tool VS Code expects beside it, and a compiler.
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
# code-server's argon2 is compiled from source by node-gyp.
if [ ! -f "$marker" ] && [ "$packages_only" = false ]; then
  command -v g++ >/dev/null 2>&1 || missing+=(g++)
  command -v make >/dev/null 2>&1 || missing+=(make)
  command -v python3 >/dev/null 2>&1 || missing+=(python3)
fi
if [ "${#missing[@]}" -gt 0 ]; then
  as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      as_root=(sudo -n)
    else
      echo "[installCodeServer] missing ${missing[*]}, and installing needs root: run \`sudo apt-get install -y --no-install-recommends ${missing[*]}\`, then run this again" >&2
      exit 1
    fi
  fi
  log "installing ${missing[*]} with apt-get"
  if ! "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
    "${as_root[@]}" apt-get update -qq
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
fi
"$packages_only" && exit 0

if [ -f "$marker" ] && [ -x "$dest/node_modules/.bin/code-server" ]; then
  log "code-server $CODE_SERVER_VERSION already installed in $dest"
  exit 0
fi

log "installing code-server $CODE_SERVER_VERSION into $dest"
mkdir -p "$dest"
cd "$dest"
[ -f package.json ] || echo '{"private":true}' > package.json
npm install --no-audit --no-fund --ignore-scripts --save-exact "code-server@$CODE_SERVER_VERSION"

vs="node_modules/code-server/lib/vscode"
(cd "$vs" && npm install --no-audit --no-fund --omit=dev --ignore-scripts)

# @vscode/ripgrep downloads its binary from GitHub unless a bin/ folder exists: give it Debian's rg.
mkdir -p "$vs/node_modules/@vscode/ripgrep/bin"
ln -sf "$(command -v rg)" "$vs/node_modules/@vscode/ripgrep/bin/rg"

# code-server's own native module, built from source.
npm rebuild argon2

# As root, code-server's postinstall demands --unsafe-perm, which npm 11 no longer has; the variable does it.
# npm 11 then warns 'Unknown cli config "--unsafe-perm"' and 'Unknown env config "unsafe-perm"' (the flag
# the postinstall passes to its own npm install, and this variable): harmless, since npm now runs scripts
# as the invoking user anyway. Only those two lines are dropped; every other line and the exit status stay.
(cd node_modules/code-server && npm_config_user_agent="npm/$(npm -v) node/$(node -v) linux x64" \
  npm_config_unsafe_perm=true sh ./postinstall.sh) \
  2> >(grep -v -E '^npm warn Unknown (cli|env) config "(--)?unsafe-perm"' >&2)

"$dest/node_modules/.bin/code-server" --version >/dev/null
touch "$marker"
log "code-server $CODE_SERVER_VERSION ready: $dest/node_modules/.bin/code-server"

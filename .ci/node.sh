# Sourced by .ci/run and bench/conformance.sh: a Node of a given major version without touching the machine. The
# machine's own node when it is that major; else the npm registry's `node` package (its preinstall fetches that
# Node's binary from the registry too) installed into a folder the caller owns and removes.
#
#   node_bin MAJOR DIR   prints the path of a node binary of major MAJOR (installs into DIR when needed)

node_bin() {
  local major="$1" dir="$2"
  if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)" = "$major" ]; then
    command -v node
    return
  fi
  mkdir -p "$dir"
  # node@MAJOR fetches its binary in a preinstall script: allow exactly that one.
  printf '{ "private": true, "allowScripts": { "node": true } }\n' > "$dir/package.json"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "node@$major" >"$dir/npm.log" 2>&1 \
    || { cat "$dir/npm.log" >&2; echo "node_bin: npm install node@$major failed" >&2; return 2; }
  local bin="$dir/node_modules/node/bin/node"
  [ "$("$bin" -p 'process.versions.node.split(".")[0]')" = "$major" ] \
    || { echo "node_bin: $bin is not Node $major" >&2; return 2; }
  echo "$bin"
}

#!/usr/bin/env bash
# `npm run conformance`: the official MCP conformance suite (@modelcontextprotocol/conformance) against
# `svc serve` on loopback. The suite runs on Node 24 (the machine's, or the npm package node@24 as .ci/node.sh
# fetches it); it and that Node go into a temporary folder — never into this project's dependencies — removed afterwards.
# Run after `npm run build` (the npm script does it). Exit status: 0 when every scenario passes.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SERVER_JS="$ROOT/dist/src/server.js"
# The suite's other tools/resources/prompts scenarios call fixtures of its reference "everything" server by name
# (test_simple_text, test://static-text, test_prompt_with_arguments, …), which svc does not have: only the
# scenarios that check any server's listings apply.
SCENARIOS=(server-initialize ping tools-list logging-set-level dns-rebinding-protection resources-list prompts-list)
SUITE_VERSION="${CONFORMANCE_VERSION:-0.1}"

[ -f "$SERVER_JS" ] || { echo "conformance: $SERVER_JS is missing; run npm run build" >&2; exit 2; }

tmp="$(mktemp -d "${TMPDIR:-/tmp}/svc-conformance.XXXXXX")"
serve_pid=""
cleanup() {
  if [ -n "$serve_pid" ] && kill -0 "$serve_pid" 2>/dev/null; then
    kill "$serve_pid" 2>/dev/null || true
    wait "$serve_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

echo "conformance: installing @modelcontextprotocol/conformance@$SUITE_VERSION (and Node 24 if this machine has another) into $tmp"
# shellcheck source=../.ci/node.sh
source "$ROOT/.ci/node.sh"
NODE24="$(node_bin 24 "$tmp/node")" || exit 2
printf '{ "private": true }\n' > "$tmp/package.json"
npm install --prefix "$tmp" --no-audit --no-fund --loglevel=error "@modelcontextprotocol/conformance@$SUITE_VERSION" >"$tmp/npm.log" 2>&1 \
  || { cat "$tmp/npm.log" >&2; echo "conformance: npm install failed" >&2; exit 2; }
SUITE="$tmp/node_modules/@modelcontextprotocol/conformance/dist/index.js"
echo "conformance: suite $("$NODE24" -p "require('$tmp/node_modules/@modelcontextprotocol/conformance/package.json').version") on Node $("$NODE24" --version)"

# svc serve on loopback, port chosen by the OS, its own data dir and the default host version (6.9). The suite
# connects without a token, so /mcp lets a request without one through (mcp_auth optional).
cat >"$tmp/svc.json" <<JSON
{ "data_dir": "$tmp/data", "server": { "host": "127.0.0.1", "port": 0, "mcp_auth": "optional" }, "log_level": "info" }
JSON
"$NODE24" "$SERVER_JS" serve --config "$tmp/svc.json" 2>"$tmp/serve.log" &
serve_pid=$!
mcp_url=""
for _ in $(seq 1 150); do
  mcp_url="$(sed -n 's/.*"mcp_url":"\([^"]*\)".*/\1/p' "$tmp/serve.log" | head -n 1)"
  [ -n "$mcp_url" ] && break
  kill -0 "$serve_pid" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$mcp_url" ]; then
  cat "$tmp/serve.log" >&2
  echo "conformance: svc serve did not start" >&2
  exit 2
fi
echo "conformance: svc serve at $mcp_url"

passed=()
failed=()
for scenario in "${SCENARIOS[@]}"; do
  echo
  if "$NODE24" "$SUITE" server --url "$mcp_url" --scenario "$scenario"; then
    passed+=("$scenario")
  else
    failed+=("$scenario")
  fi
done

echo
echo "conformance summary: ${#passed[@]}/${#SCENARIOS[@]} scenarios passed"
for s in "${passed[@]}"; do echo "  PASS  $s"; done
for s in "${failed[@]:-}"; do [ -n "$s" ] && echo "  FAIL  $s"; done
[ "${#failed[@]}" -eq 0 ]

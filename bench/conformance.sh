#!/usr/bin/env bash
# `npm run conformance`: the official MCP conformance suite (@modelcontextprotocol/conformance) against
# `svc serve` on loopback, for both protocol eras: the 0.1.x suite for the 2025 revisions and the 0.2.x suite with
# --spec-version 2026-07-28. The suites run on Node 24 (the machine's, or the npm package node@24 as .ci/node.sh
# fetches it); they and that Node go into a temporary folder — never into this project's dependencies — removed
# afterwards. Run after `npm run build` (the npm script does it). Exit status: 0 when every required scenario passes.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SERVER_JS="$ROOT/dist/src/server.js"
# The suites' other tools/resources/prompts scenarios call fixtures of their reference "everything" server by name
# (test_simple_text, test://static-text, test_prompt_with_arguments, …), which svc does not have: only the
# scenarios that check any server apply. They must pass.
SCENARIOS_2025=(server-initialize ping tools-list logging-set-level dns-rebinding-protection resources-list prompts-list)
SCENARIOS_2026=(tools-list resources-list prompts-list dns-rebinding-protection server-sse-multiple-streams caching
  http-header-validation sep-2164-resource-not-found)
# Run and counted, but not required: each has checks that call the reference server's diagnostic tools
# (test_missing_capability, test_logging_tool, greet, slow_compute, test_input_required_result_elicitation, …) and
# count as failed when they are missing; the checks that need none pass.
INFORMATIONAL_2026=(server-stateless tasks-capability-negotiation tasks-dispatch-and-envelope input-required-result-tampered-state)
SUITE_2025="${CONFORMANCE_VERSION:-0.1}"
SUITE_2026="${CONFORMANCE_2026_VERSION:-0.2.0-alpha.12}"

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

echo "conformance: installing @modelcontextprotocol/conformance $SUITE_2025 and $SUITE_2026 (and Node 24 if this machine has another) into $tmp"
# shellcheck source=../.ci/node.sh
source "$ROOT/.ci/node.sh"
NODE24="$(node_bin 24 "$tmp/node")" || exit 2
# One folder per suite: both are the same package name.
install_suite() {
  local dir="$tmp/suite-$1"
  mkdir -p "$dir"
  printf '{ "private": true }\n' > "$dir/package.json"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "@modelcontextprotocol/conformance@$1" >"$dir/npm.log" 2>&1 \
    || { cat "$dir/npm.log" >&2; echo "conformance: npm install of the suite $1 failed" >&2; exit 2; }
  echo "$dir/node_modules/@modelcontextprotocol/conformance"
}
PKG_2025="$(install_suite "$SUITE_2025")"
PKG_2026="$(install_suite "$SUITE_2026")"
version_of() { "$NODE24" -p "require('$1/package.json').version"; }
echo "conformance: suites $(version_of "$PKG_2025") (2025) and $(version_of "$PKG_2026") (2026-07-28) on Node $("$NODE24" --version)"

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
informational=()
# One scenario: its checks' count from the suite's own "Passed: x/y, n failed" line, kept in the summary.
run_scenario() {
  local era="$1" pkg="$2" scenario="$3" required="$4"
  shift 4
  local out="$tmp/$era-$scenario.log" ok=0
  echo
  "$NODE24" "$pkg/dist/index.js" server --url "$mcp_url" --scenario "$scenario" "$@" >"$out" 2>&1 || ok=$?
  cat "$out"
  local counts
  counts="$(sed -n 's/^Passed: \([0-9]*\/[0-9]*\), \([0-9]*\) failed.*/\1 checks, \2 failed/p' "$out" | tail -n 1)"
  local line="$era $scenario: ${counts:-no result}"
  if [ "$required" = no ]; then
    informational+=("$line")
  elif [ "$ok" -eq 0 ]; then
    passed+=("$line")
  else
    failed+=("$line")
  fi
}
for scenario in "${SCENARIOS_2025[@]}"; do run_scenario 2025 "$PKG_2025" "$scenario" yes; done
for scenario in "${SCENARIOS_2026[@]}"; do run_scenario 2026-07-28 "$PKG_2026" "$scenario" yes --spec-version 2026-07-28; done
for scenario in "${INFORMATIONAL_2026[@]}"; do
  run_scenario 2026-07-28 "$PKG_2026" "$scenario" no --spec-version 2026-07-28 --force
done

required=$((${#SCENARIOS_2025[@]} + ${#SCENARIOS_2026[@]}))
echo
echo "conformance summary: ${#passed[@]}/$required required scenarios passed (2025: ${#SCENARIOS_2025[@]}, 2026-07-28: ${#SCENARIOS_2026[@]})"
for s in "${passed[@]}"; do echo "  PASS  $s"; done
for s in "${failed[@]:-}"; do [ -n "$s" ] && echo "  FAIL  $s"; done
for s in "${informational[@]}"; do echo "  INFO  $s"; done
[ "${#failed[@]}" -eq 0 ]

#!/usr/bin/env bash
# `npm test` (run it through npm: it puts the project's Node and tools on PATH). The console build
# (the browser tier serves it), then every vitest tier with the typecheck and the lint running
# beside it: they share nothing with the tests, and on two cores they take the core vitest leaves
# idle while it starts the tiers' local clouds one after another, instead of running ~45 s in
# front of it. Their output is printed after the tests'. Fails when anything fails.
set -u
cd "$(dirname "$0")/.."

npm run --silent console:build || exit 1

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
check() {
  npm run --silent "$1" >"$logs/$1.log" 2>&1 || echo "$1" >>"$logs/failed"
}
check typecheck &
check lint &

vitest run
tests=$?

wait
for name in typecheck lint; do
  echo "── npm run $name"
  cat "$logs/$name.log"
done
if [ -s "$logs/failed" ]; then
  echo "failed: $(tr '\n' ' ' <"$logs/failed")"
  exit 1
fi
exit "$tests"

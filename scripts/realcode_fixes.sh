#!/usr/bin/env bash
# The jitlint half of tests/realcode_fixes.md: `--fix --unsafe-fixes` over copies of the two public
# real-code corpora, twice, with the files each run changed (diff -r against the original) and a
# py_compile of every changed file.  Read-only on the corpora; writes only under OUT.
#
#   scripts/realcode_fixes.sh [LIB_CORPUS [APPS_CORPUS [OUT]]]
#       defaults: /tmp/realcode /tmp/realcode-apps /tmp/rcfix_out
#       (corpora made by ../shared/tools/make_realcode.sh and make_realcode_apps.sh)
#   JOBS=N (default 2) worker processes; PYTHON=... the interpreter that has jitlint (default .venv).
#
# Checking each rewritten function by running it needs the libraries installed and is described,
# step by step, in tests/realcode_fixes.md (the scripts there copy library code, so they are not here).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
LIB=${1:-/tmp/realcode}; APPS=${2:-/tmp/realcode-apps}; OUT=${3:-/tmp/rcfix_out}
PY=${PYTHON:-$here/.venv/bin/python}; JOBS=${JOBS:-2}
mkdir -p "$OUT"
for src in "$LIB" "$APPS"; do
  name=$(basename "$src"); copy="$OUT/copy-$name"
  rm -rf "$copy" "$copy.after1"; cp -a "$src" "$copy"
  echo "== $name: $(find "$src" -name '*.py' | wc -l) files, $(find "$src" -name '*.py' -print0 | xargs -0 cat | wc -l) lines"
  for run in 1 2; do
    ( cd "$here" && PYTHONPATH="$here" "$PY" -m jitlint check --no-cache --no-progress -j "$JOBS" \
        --fix --unsafe-fixes --show-fixes "$copy" ) > "$OUT/$name.fix$run.txt" 2>&1
    echo "run $run: exit $?; $(grep -E "^(Fixed [0-9]|No fixes|Found)" "$OUT/$name.fix$run.txt" | tail -1)"
    if [ "$run" = 1 ]; then
      diff -r "$src" "$copy" > "$OUT/$name.fix1.diff"; cp -a "$copy" "$copy.after1"
      changed=$(diff -rq "$src" "$copy" | awk '/^Files/ {print $4}')
      echo "changed files: ${changed:-none}"
      for f in $changed; do "$PY" -c "import sys, py_compile; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)" "$f" "$OUT/check.pyc" \
          && echo "compiles: $f"; done
    else
      if diff -rq "$copy.after1" "$copy" > /dev/null; then echo "second run changed nothing"; else
        echo "SECOND RUN CHANGED FILES:"; diff -r "$copy.after1" "$copy"; fi
    fi
  done
done

#!/usr/bin/env bash
# Run jitlint's dynamic verifier over the fix fixtures on a GPU; print the device, verdicts and timings.
#
# On the GPU machine, a CUDA-enabled JAX must already be installed.  That machine may have no package
# index, so jitlint's own dependency (libcst, and pyyaml with it) comes along as wheels:
#
#   here:   pip download libcst -d wheels/ --only-binary=:all: --python-version 3.X \
#               --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64   (and tomli for 3.10)
#   there:  scripts/gpu_check.sh [--all | FIXTURE ...]      (BUDGET=SECONDS to change the budget)
#
# wheels/ (untracked; it travels with the working tree) is installed with
# `pip install --no-index --find-links wheels/` when libcst is missing;
# jitlint itself runs from this checkout (PYTHONPATH), so nothing needs building.  The default set of
# fixtures (one or two per fix family) takes well under 5 minutes; the script stops starting new
# fixtures after --budget seconds (default 240) and is killed at 290 s in any case.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"

if ! "$PYTHON" -c "import libcst" 2>/dev/null; then
  if [ -d wheels ]; then
    "$PYTHON" -m pip install --quiet --no-index --find-links wheels/ libcst 'tomli; python_version < "3.11"'
  else
    echo "gpu_check: libcst is not installed and there is no wheels/ folder (see the top of this script)" >&2
    exit 2
  fi
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
# each verification subprocess takes the GPU in turn: none of them may grab most of its memory up front
export XLA_PYTHON_CLIENT_PREALLOCATE="${XLA_PYTHON_CLIENT_PREALLOCATE:-false}"

"$PYTHON" - <<'PY'
import importlib.metadata as md, sys
for name in ("jax", "jaxlib", "libcst"):
    try:
        print(f"{name} {md.version(name)}")
    except md.PackageNotFoundError:
        print(f"{name} not installed")
cuda = [d.metadata["Name"] for d in md.distributions() if "cuda" in (d.metadata["Name"] or "").lower()]
print("cuda packages:", ", ".join(sorted(set(cuda))) or "none")
PY
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true

# Each fixture goes through `jitlint verify --cross-check cpu` -- the command a user runs: the fixed version
# runs on JAX's default backend (the GPU), and the original and the fixed version run again on the CPU, with the
# largest GPU/CPU difference reported per function.  Arguments: fixture names (default: one or two per fix
# family), or --all; BUDGET (seconds, default 240) stops starting new fixtures; the whole run is killed at 290 s.
DEFAULT_SET="branch_grad_clip branch_ternary_where branch_elif branch_in_loop branch_logical_ops
  fori_euler fori_multi_carry fori_method fori_nested_if
  while_newton while_value_iteration while_collatz while_nested_if
  print_scan_body print_expression_fields print_helper
  static_shape_param static_method_nums static_flag_if"
FIXTURES=tests/fixtures/fix
if [ "${1:-}" = "--all" ]; then
  NAMES=$(cd "$FIXTURES" && ls -- *.in.py | sed 's/\.in\.py$//')
elif [ "$#" -gt 0 ]; then
  NAMES="$*"
else
  NAMES=$DEFAULT_SET
fi
BUDGET="${BUDGET:-240}"
run_all() {
  local failed=0 skipped=0 start=$SECONDS name
  for name in $NAMES; do
    if [ $((SECONDS - start)) -ge "$BUDGET" ]; then skipped=$((skipped + 1)); continue; fi
    echo "== $name ($((SECONDS - start)) s)"
    "$PYTHON" -m jitlint verify --isolated --cross-check cpu --timeout 90 \
      --fixed "$FIXTURES/$name.out.py" "$FIXTURES/$name.in.py" || failed=$((failed + 1))
  done
  echo "gpu_check: $failed fixture(s) with a function not verified; $skipped not run (budget); $((SECONDS - start)) s"
  [ "$failed" -eq 0 ] && [ "$skipped" -eq 0 ]
}
export -f run_all
export PYTHON NAMES BUDGET FIXTURES
exec timeout 290 bash -c run_all

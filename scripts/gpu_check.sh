#!/usr/bin/env bash
# Run jitlint's dynamic verifier over the fix fixtures on a GPU; print the device, verdicts and timings.
#
# On the GPU machine, a CUDA-enabled JAX must already be installed.  That machine may have no package
# index, so jitlint's own dependency (libcst, and pyyaml with it) comes along as wheels:
#
#   here:   pip download libcst -d wheels/ --only-binary=:all: --python-version 3.X \
#               --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64   (and tomli for 3.10)
#   there:  scripts/gpu_check.sh [--all] [FIXTURE ...]
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

exec timeout 290 "$PYTHON" scripts/gpu_check.py "$@"

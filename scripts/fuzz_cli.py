"""A long fuzz run through the command line: the process pool, the results cache and ``--fix``.

Usage: ``python scripts/fuzz_cli.py [PROGRAMS] [SEED] [WORKDIR]`` (defaults 1000, 7, a temporary folder).

Programs are mutations of the repo's fixtures (``tests/fuzz_support.py``), in batches of 250
modules; every module gets a harmless helper, and 30% of them call a helper of an earlier module
from a jitted function.  Per batch: ``check -j2`` with a cold cache, again with the warm cache, and
``check -j1 --no-cache`` must give the same findings; after a tenth of the helpers turn hazardous,
the warm cache must agree with ``--no-cache`` (no stale cross-module result); ``--fix
--unsafe-fixes`` must leave every compiling module compiling, and a second ``--fix`` change
nothing.  Prints a JSON line of counts per batch; a batch whose check modes disagree is copied
aside with the differing findings.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "tests"))
from fuzz_support import compiles, jit_everything, mutate, seed_corpus  # noqa: E402

J = os.path.join(os.path.dirname(sys.executable), "jitlint")
N = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
BATCH = 250
rnd = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 7)
WORK = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix="jitlint-fuzz-cli-")
seeds = seed_corpus()
stats = dict(programs=0, batches=0, findings=0, internal=0, disagree=0, fixed_files=0, not_compiling=0,
             second_fix_changed=0, stale=0, errors=0)
problems = []


def run(args, cwd):
    p = subprocess.run([J, *args], cwd=cwd, capture_output=True, text=True, timeout=3600)
    return p


def report(args, cwd):
    p = run(["check", "--format", "json", *args, "."], cwd)
    if p.returncode not in (0, 1):
        problems.append(("exit", args, p.returncode, p.stderr[-500:]))
        return None
    data = json.loads(p.stdout)
    return sorted(json.dumps({k: v for k, v in d.items() if k not in ("url",)}, sort_keys=True) for d in data)


t0 = time.time()
done = 0
while done < N:
    root = os.path.join(WORK, f"b{stats['batches']}")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    cache = root + ".cache"
    shutil.rmtree(cache, ignore_errors=True)
    texts = {}
    for i in range(min(BATCH, N - done)):
        name, seed = rnd.choice(seeds)
        text = mutate(seed, rnd, rnd.randint(1, 6))
        if rnd.random() < 0.3:
            text = jit_everything(text)
        # some modules import a helper of another (cross-module analysis)
        text += f"\n\ndef helper_{i}(x):\n    return x * 2\n"
        if i and rnd.random() < 0.3:
            k = rnd.randrange(i)
            text = (f"import jax as _jx\nfrom m{k} import helper_{k}\n" + text +
                    f"\n\n@_jx.jit\ndef use_{k}_{i}(x):\n    return helper_{k}(x)\n")
        texts[f"m{i}.py"] = text
        with open(os.path.join(root, f"m{i}.py"), "w", encoding="utf-8", errors="surrogatepass") as f:
            f.write(text)
    done += len(texts)
    stats["programs"] += len(texts)
    stats["batches"] += 1
    cold = report(["-j2", "--cache-dir", cache], root)
    warm = report(["-j2", "--cache-dir", cache], root)
    none = report(["-j1", "--no-cache"], root)
    if None in (cold, warm, none):
        continue
    stats["findings"] += len(none)
    stats["internal"] += sum('"JIT000"' in d for d in none)
    if not (cold == warm == none):
        stats["disagree"] += 1
        problems.append(("disagree", root, len(cold), len(warm), len(none)))
        keep = os.path.join(WORK, f"disagree_{stats['batches']}")
        shutil.rmtree(keep, ignore_errors=True)
        shutil.copytree(root, keep)
        with open(keep + ".json", "w") as f:
            json.dump({"cold": sorted(set(cold) - set(none)), "warm": sorted(set(warm) - set(none)),
                       "none": sorted(set(none) - set(cold) | set(none) - set(warm))}, f, indent=1)
        print("DISAGREE kept in", keep, flush=True)
    # edit a tenth of the modules (a hazard appears in a helper), then warm vs no cache
    for name in rnd.sample(sorted(texts), max(1, len(texts) // 10)):
        path = os.path.join(root, name)
        text = open(path, encoding="utf-8", errors="surrogatepass").read()
        i = name[1:-3]
        text = text.replace(f"def helper_{i}(x):\n    return x * 2\n",
                            f"def helper_{i}(x):\n    if x > 0:\n        print(x)\n    return x * 2\n")
        with open(path, "w", encoding="utf-8", errors="surrogatepass") as f:
            f.write(text)
    warm2 = report(["-j2", "--cache-dir", cache], root)
    none2 = report(["-j1", "--no-cache"], root)
    stats["new_after_edit"] = stats.get("new_after_edit", 0) + len(none2 or []) - len(none)
    if warm2 != none2:
        stats["stale"] += 1
        problems.append(("stale", root))
    before = {n: open(os.path.join(root, n), "rb").read() for n in texts}
    p = run(["check", "--fix", "--unsafe-fixes", "-j2", "--cache-dir", cache, "."], root)
    if p.returncode not in (0, 1):
        problems.append(("fix-exit", root, p.returncode, p.stderr[-500:]))
    after = {n: open(os.path.join(root, n), "rb").read() for n in texts}
    for n in texts:
        if after[n] != before[n]:
            stats["fixed_files"] += 1
            old, new = (b.decode("utf-8", "surrogatepass") for b in (before[n], after[n]))
            if compiles(old) and not compiles(new):
                stats["not_compiling"] += 1
                problems.append(("not-compiling", root, n))
    p = run(["check", "--fix", "--unsafe-fixes", "-j2", "--cache-dir", cache, "."], root)
    again = {n: open(os.path.join(root, n), "rb").read() for n in texts}
    changed = [n for n in texts if again[n] != after[n]]
    stats["second_fix_changed"] += len(changed)
    problems.extend(("second-fix", root, n) for n in changed)
    print(json.dumps(stats), f"{time.time() - t0:.0f}s", flush=True)
print("FINAL", json.dumps(stats), f"{time.time() - t0:.0f}s")
for p in problems[:30]:
    print("PROBLEM", p)
sys.exit(1 if problems else 0)

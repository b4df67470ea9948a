"""Cross-module analysis: helpers imported from another module of the checked folder."""
import json
import subprocess
import sys
import os
import re

import pytest

from jitlint.config import Config
from jitlint.engine import parse
from jitlint import runner
from jitlint.runner import lint_files

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "project", "pkg")
EXPECT = re.compile(r"#\s*expect:\s*(JIT\d+)")


def _load(name):
    path = os.path.join(HERE, name)
    with open(path, encoding="utf-8") as fh:
        source = fh.read()
    return path, source, parse(source)


def lint_project(files, config):
    """The findings of each file, checked together with the project around them (no cache)."""
    results = lint_files([path for path, _, _ in files], config)
    assert all(r.error is None for r in results)
    return {r.path: list(r.diagnostics) for r in results}


def _expected(source):
    return {(i, m.group(1)) for i, line in enumerate(source.splitlines(), 1) for m in [EXPECT.search(line)] if m}


def test_helper_findings_point_at_the_helper_module():
    files = [_load(n) for n in ("train.py", "ops.py", "__init__.py")]
    results = lint_project(files, Config())
    for path, source, _ in files:
        got = results[path]
        assert {(d.line, d.code) for d in got} == _expected(source), path


def test_reason_chain_leads_back_to_the_jitted_caller():
    files = [_load(n) for n in ("train.py", "ops.py")]
    results = lint_project(files, Config())
    ops_path = files[1][0]
    (finding,) = [d for d in results[ops_path] if d.code == "JIT201"]
    chain = " | ".join(finding.reason)
    assert "parameter `g` of `clip_norm` receives traced `grads`" in chain
    assert "train.py" in chain
    assert "`@jax.jit` (line 9 of " in chain


def test_helper_module_outside_the_checked_set_is_followed_but_not_reported():
    files = [_load("train.py")]
    results = lint_project(files, Config())
    assert list(results) == [files[0][0]]
    assert results[files[0][0]] == []


def test_a_helper_module_checked_alone_gets_the_findings_its_callers_cause():
    """`check ops.py` reports what `check pkg` reports in ops.py: its jitted callers are found in the project."""
    alone = lint_project([_load("ops.py")], Config())
    together = lint_project([_load(n) for n in ("train.py", "ops.py", "__init__.py")], Config())
    path = _load("ops.py")[0]
    def found(diags):  # the reasons name the caller by the path it was reached under
        return [(d.line, d.column, d.code, d.message, d.fix) for d in diags]

    assert found(alone[path]) == found(together[path])
    assert {(d.line, d.code) for d in alone[path]} == _expected(_load("ops.py")[1]) != set()
    assert any("train.py" in link for d in alone[path] for link in d.reason)


def test_single_module_linting_does_not_follow_imports():
    from jitlint.engine import lint_source

    path, source, _ = _load("ops.py")
    assert lint_source(source, path).diagnostics == ()


STRUCTS = os.path.join(os.path.dirname(__file__), "fixtures", "project", "structs_pkg")
NESTED = os.path.join(os.path.dirname(__file__), "fixtures", "project", "nested_pkg")


def _check_package(root, names):
    """The files ``names`` of the package at ``root``, checked together, give exactly the findings
    their `# expect:` comments name."""
    files = []
    for name in names:
        path = os.path.join(root, name)
        with open(path, encoding="utf-8") as fh:
            source = fh.read()
        files.append((path, source, parse(source)))
    results = lint_project(files, Config())
    for path, source, _ in files:
        assert {(d.line, d.code) for d in results[path]} == _expected(source), path


def test_static_fields_of_an_annotated_class_from_another_module():
    """`model: Model`, a struct re-exported by a package `__init__`: its pytree_node=False fields
    are static in the jitted function that takes it; its data fields are traced."""
    _check_package(STRUCTS, ("sim.py", os.path.join("structs", "model.py"), os.path.join("structs", "__init__.py")))


def test_static_fields_of_a_nested_field_class_from_another_module():
    """`runtime_params.plasma_composition.main_ion_names`: the class of the field is its annotation
    on the parameter's class (another module), so its static fields are static; a data field that
    class annotates as an array is traced, also in a helper whose parameter names the class."""
    _check_package(NESTED, ("step.py", os.path.join("cfg", "runtime_params.py"), os.path.join("cfg", "plasma.py")))


KEYS = os.path.join(os.path.dirname(__file__), "fixtures", "project", "keys_pkg")


def test_is_none_of_a_parameter_every_call_passes_an_array():
    """`keys_pkg.rnd.seed(key)` through the package attribute path, with `key` an array at every call
    (`key = keys_pkg.rnd.get_key()`, annotated `-> jax.Array` in another module): `if seed_or_key is
    None:` is False in the trace. `fresh`, reached with None, draws at trace time."""
    _check_package(KEYS, ("usage.py", "__init__.py", os.path.join("rnd", "__init__.py"), os.path.join("rnd", "_seed.py")))


AGENT = os.path.join(os.path.dirname(__file__), "fixtures", "project", "agent_pkg")


def test_static_fields_of_a_returned_class_and_of_imported_classes():
    """A function annotated `-> Agent` (another module's equinox Module) returns an Agent: its static
    fields are Python values after the call, also through a scan's dict carry and a method annotated
    `-> "Agent"`. On an `Any` jitted parameter, a field name that the classes of the modules imported
    here declare static (and none as a data field) is static. Data fields, a name static in a
    module not imported, and a name that another imported class declares as data stay reported."""
    _check_package(AGENT, ("rollout.py", "search.py", "agent.py", "control.py", "__init__.py"))


OPS = os.path.join(os.path.dirname(__file__), "fixtures", "project", "ops_pkg")


def test_static_metadata_of_classes_registered_by_a_base_in_another_module():
    """`field(metadata={"static": True})` on operator classes that a base class registers in
    `__init_subclass__`, imported through the package's re-exports: static on an object of unknown
    class and on one annotated with a subclass defined in a third module; a data field in `if` and a
    field of a class that does not declare it static stay reported."""
    _check_package(OPS, ("noise.py", "__init__.py", os.path.join("core", "__init__.py"),
                         os.path.join("core", "_base.py"), os.path.join("core", "_fourier.py"),
                         os.path.join("core", "_windowed.py"), os.path.join("core", "_plain.py")))


FROZEN = os.path.join(os.path.dirname(__file__), "fixtures", "project", "frozen_pkg")


def test_frozen_fields_of_lax_cond_operands_through_helpers_of_another_module():
    """pytreeclass fields stored frozen through helpers of another module (`frozen_field`, and
    `frozen_private_field` returning it), on a class and on its base of a third module (read
    through a property): static in `lax.cond` branches; a data field in `if` and a plain field's
    ints sliced in a branch stay reported."""
    _check_package(FROZEN, ("update.py", "detectors.py", "objects.py", "pytrees.py", "__init__.py"))


GIVEN = os.path.join(os.path.dirname(__file__), "fixtures", "project", "given_pkg")


def test_functions_given_to_helpers_of_another_module_run_where_the_helper_calls_them():
    """A function passed to a helper of another module runs in the trace when the helper calls
    it or hands it to a JAX transform; not when it hands it to a library jitlint knows nothing of
    (a host foreign-function wrapper) or only stores it."""
    _check_package(GIVEN, ("model.py", "wrappers.py", "__init__.py"))


REGISTRY = os.path.join(os.path.dirname(__file__), "fixtures", "project", "registry_pkg")


def test_dataclasses_registered_through_a_helper_of_another_module():
    """`_register(Setup, meta=(...))`, the helper imported from another module under another name,
    forwards `meta` to `register_dataclass(meta_fields=list(meta))`: those fields are static; a class
    the helper registers without meta keeps its fields traced."""
    _check_package(REGISTRY, ("solver.py", "pytrees.py", "__init__.py"))


def test_checking_one_file_reads_only_the_modules_it_needs(tmp_path, monkeypatch):
    """A chain of modules, each calling the next one's function at module level (as JAX's modules
    call `register_lowering`): checking the file at the head of the chain reads the module it
    imports a helper from, not the whole chain.  (A check that resolved every module-level call of
    every module it reads once read all of JAX for each file, about 40x slower.)"""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    (pkg / "__init__.py").write_text("")
    links = 12
    for i in range(links):
        nxt = f"from pkg import m{i + 1}\nm{i + 1}.setup('p{i}')\n" if i + 1 < links else ""
        (pkg / f"m{i}.py").write_text(
            f"# m{i}\nimport jax\n{nxt}\n\ndef setup(name):\n    return name\n\n\ndef helper(x):\n    return x * 2\n")
    head = pkg / "head.py"
    head.write_text("import jax\n\nfrom pkg.m0 import helper\n\n\n@jax.jit\ndef f(x):\n    return helper(x)\n")
    import jitlint.engine as engine

    parsed = []
    real = engine.parse

    def counting(source, *args, **kwargs):
        parsed.extend(re.findall(r"^# (m\d+)$", source, re.MULTILINE))
        return real(source, *args, **kwargs)

    monkeypatch.setattr(engine, "parse", counting)
    [result] = lint_files([str(head)], Config())
    assert result.error is None and not result.diagnostics
    assert "m0" in parsed  # the helper's module is read ...
    assert len(set(parsed)) <= 2, parsed  # ... and not the chain behind it


def _package(tmp_path, caller: str):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    (pkg / "__init__.py").write_text("")
    (pkg / "helpers.py").write_text(
        "import time\n\n\ndef init(x):\n    started = time.time()\n    return x * 2 + 0 * started\n")
    (pkg / "main.py").write_text("import jax\n\nfrom pkg import helpers\n\n\n" + caller)
    return pkg


def test_a_helper_of_another_module_runs_in_its_callers_trace(tmp_path):
    """Called under `jax.vmap` alone, which traces again on every call, another module's helper reads
    the clock on every call (as its log line did, JAX 0.10.2: three calls, three records): not
    flagged.  Called from a jitted function it reads it once per trace: flagged there, in the
    helper's module.  (The helper's module used to be analysed as if its trace were kept, whatever
    the caller's.)"""
    (tmp_path / "a").mkdir()
    pkg = _package(tmp_path / "a", "def batch(xs):\n    return jax.vmap(lambda x: helpers.init(x) + 1)(xs)\n")
    results = lint_files([str(pkg / "main.py"), str(pkg / "helpers.py")], Config())
    assert [d.code for r in results for d in r.diagnostics] == []
    (tmp_path / "b").mkdir()
    pkg = _package(tmp_path / "b", "@jax.jit\ndef step(x):\n    return helpers.init(x)\n")
    results = lint_files([str(pkg / "main.py"), str(pkg / "helpers.py")], Config())
    assert [(os.path.basename(r.path), d.code) for r in results for d in r.diagnostics] == [("helpers.py", "JIT104")]


def _files(root, sources):
    """A package ``pkg`` under ``root`` with these modules (and an empty ``__init__.py``)."""
    pkg = root / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for name, text in sources.items():
        (pkg / name).write_text(text)


def test_a_part_of_another_modules_result_is_explained_in_that_modules_lines(tmp_path, monkeypatch):
    """`float(geometry.normal(x)[1])`: the item's reason starts in geometry.py, so its lines are that
    file's (they used to be looked up in the caller's module: "on line ?"), shown relative to the
    working directory as the findings' paths are."""
    _files(tmp_path, {
        "geometry.py": "import jax.numpy as jnp\n\n\ndef normal(X):\n    n = jnp.cross(X, X)\n"
                       "    orient = jnp.sign(n.sum())\n    return n, orient\n",
        "main.py": "import jax\n\nfrom pkg.geometry import normal\n\n\n@jax.jit\ndef evaluate(X):\n"
                   "    return X * float(normal(X)[1])\n",
    })
    monkeypatch.chdir(tmp_path)
    (result,) = lint_files([os.path.join("pkg", "main.py")], Config())
    (finding,) = result.diagnostics
    assert finding.code == "JIT301"
    assert finding.reason[0] == ("`orient` is assigned a traced value on line 6 of "
                                 + os.path.join("pkg", "geometry.py")), finding.reason
    assert not any("line ?" in link for link in finding.reason), finding.reason


def test_why_a_helper_runs_in_a_trace_names_each_call_up_to_the_transform(tmp_path, monkeypatch):
    """A finding about a statement (here a clock read) explains why its function is traced: the calls
    that lead to it, each at its line (in its own file), up to what traces the first."""
    _files(tmp_path, {
        "timing.py": "import time\n\n\ndef stamp(x):\n    t0 = time.perf_counter()\n    return x, t0\n",
        "main.py": "import jax\n\nfrom pkg.timing import stamp\n\n\ndef middle(x):\n    return stamp(x)[0] * 2\n"
                   "\n\n@jax.jit\ndef step(x):\n    return jax.tree_util.tree_map(lambda leaf: middle(leaf), x)\n",
    })
    monkeypatch.chdir(tmp_path)
    results = lint_files([os.path.join("pkg", "main.py"), os.path.join("pkg", "timing.py")], Config())
    (finding,) = [d for r in results for d in r.diagnostics]
    assert (finding.code, finding.line) == ("JIT104", 5)
    main = os.path.join("pkg", "main.py")
    assert finding.reason == (
        f"`stamp` is called from `middle` (line 7 of {main})",
        f"`middle` is called from `step.<locals>.<lambda>` (line 12 of {main})",
        f"`step.<locals>.<lambda>` is called from `step` (line 12 of {main})",
        "`step` is traced by `@jax.jit`",
    )


FIELDS = os.path.join(os.path.dirname(__file__), "fixtures", "project", "fields_pkg")


def test_numpy_property_of_static_fields_of_a_base_class_in_another_module():
    """A base class's property computed with NumPy, through locals, from its static fields only is a
    host value on a traced instance of a subclass in another module; one computed from a data field
    is traced (run on JAX 0.10.2: the first jits, the second raises ConcretizationTypeError)."""
    _check_package(FIELDS, ("shells.py", "core.py"))


ENVS = os.path.join(os.path.dirname(__file__), "fixtures", "project", "envs_pkg")


def test_properties_and_fields_of_base_classes_in_other_modules():
    """A property inherited from a base class that a package `__init__` defines (imported with `from . import
    Environment`) is its code, run on the traced instance: a size computed from a shape is static, one from
    the data traced; a field a base class of another module declares holds what its annotation there names,
    and a `jax.tree.static()` field is static (run on JAX 0.10.2: `reset` and `epoch` jit and equal eager,
    `scaled` raises ConcretizationTypeError)."""
    _check_package(ENVS, ("state.py", os.path.join("envs", "__init__.py"), os.path.join("envs", "navigator.py"),
                          "trainer_base.py", "trainers.py"))


REGISTERED = os.path.join(os.path.dirname(__file__), "fixtures", "project", "registered_pkg")


def test_fields_of_classes_a_project_decorator_registers_by_code_of_its_own():
    """`@partial(pytree_dataclass, aux_fields=Ellipsis)`, a decorator of the package that computes which
    fields are aux data: such a field is not known to be traced -- read on an unannotated parameter, in a
    property, in a helper module that imports nothing of the package (reached from the jitted function)
    -- unless declared an array; a decorator whose split is read (`register_dataclass` with its `meta`)
    keeps its data fields traced and its meta fields static (run on JAX 0.10.2: see model.py); and
    `math.prod` multiplies arrays as arrays."""
    _check_package(REGISTERED, ("model.py", "chunks.py", "config.py", "tree_util.py", "__init__.py"))


def test_a_helper_module_reached_from_its_importers_agrees_checked_alone(tmp_path):
    """The helper module alone, the package, and the module that reaches it give the same findings: the
    helper's importers (which import the registered classes) are read whichever unit reaches it."""
    import shutil
    import subprocess
    import sys

    root = tmp_path / "proj"
    shutil.copytree(REGISTERED, root / "registered_pkg")
    (root / "pyproject.toml").write_text("[project]\nname = 'registered_pkg'\n", encoding="utf-8")

    def found(*paths):
        out = subprocess.run([sys.executable, "-m", "jitlint", "check", "--isolated", "--no-cache", "--format",
                              "json", *paths], cwd=root, capture_output=True, text=True)
        assert out.returncode in (0, 1), out.stderr
        return {(os.path.basename(d["path"]), d["line"], d["code"]) for d in json.loads(out.stdout)}

    whole = found("registered_pkg")
    assert whole == {("model.py", 29, "JIT201"), ("model.py", 38, "JIT202")}
    assert found("registered_pkg/chunks.py") == set()
    assert found("registered_pkg/model.py") == whole


def test_a_released_project_is_freed_without_the_cyclic_collector(tmp_path):
    """Once its findings are made, the analysis lets go of every module's tree by reference counting
    alone: the collector would otherwise walk each tree (the analysis's facts link back to each other)
    before freeing it, a twelfth of a check of the libraries corpus."""
    import gc

    import libcst

    from jitlint.engine import analyse_unit

    (tmp_path / "helpers.py").write_text(
        "import jax.numpy as jnp\n\n\nclass Scaler:\n    def __init__(self, k):\n        self.k = k\n\n"
        "    def __call__(self, x):\n        return self.k * x\n\n\n"
        "def clip(x, limit):\n    def inner(y):\n        return jnp.minimum(y, limit)\n\n"
        "    if x.sum() > limit:\n        print('clipping', x)\n    return inner(x)\n", encoding="utf-8")
    main = tmp_path / "main.py"
    main.write_text(
        "import jax\n\nfrom helpers import Scaler, clip\n\n\nclass Model:\n    def __init__(self):\n"
        "        self.scale = Scaler(2.0)\n\n    def apply(self, x):\n        def twice(y):\n"
        "            return self.scale(y) * 2\n\n        return twice(x)\n\n\n"
        "@jax.jit\ndef step(x, limit):\n    return clip(Model().apply(x), limit)\n", encoding="utf-8")
    trees = []

    def load(path):
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        tree = libcst.parse_module(text)
        trees.append(id(tree))
        return text, tree

    was_enabled = gc.isenabled()
    gc.disable()
    try:
        source = main.read_text(encoding="utf-8")
        module = libcst.parse_module(source)
        trees.append(id(module))
        found, project = analyse_unit(str(main), source, module, Config(), roots=[str(tmp_path)], load_source=load)
        assert len(trees) == 2  # the helper module was read
        assert "JIT201" in {d.code for ds in found.values() for d in ds}
        del module
        project.release()
        del project
        # (LibCST's nodes take no weak reference; the collector is off, so a tree left in a cycle is listed)
        left = [o for o in gc.get_objects() if isinstance(o, libcst.Module) and id(o) in trees]
        assert left == []  # the findings hold no node either
    finally:
        if was_enabled:
            gc.enable()


IMPORTER = os.path.join(os.path.dirname(__file__), "fixtures", "project", "importer_pkg")


def test_static_fields_of_classes_the_importers_build():
    """On an `Any` jitted parameter, a field name that a class of a module importing this one -- or
    imported by such a module -- declares static is a Python value: the importer builds the objects
    this module's functions get.  Checked alone the module knows its importers too (the project
    around it is listed).  A data field of that class, and a name static only in a module that is
    neither, stay reported."""
    names = ("cache_ops.py", "model.py", "serve.py", "unrelated.py", "__init__.py")
    _check_package(IMPORTER, names)
    path = os.path.join(IMPORTER, "cache_ops.py")
    with open(path, encoding="utf-8") as fh:
        source = fh.read()
    alone, = lint_files([path], Config())
    assert {(d.line, d.code) for d in alone.diagnostics} == _expected(source)


def test_an_importer_is_parsed_for_a_field_only_where_its_text_names_it():
    """A module's importers are read, and parsed only where their text names the field asked about and
    can declare a field static: no class of a module that never names ``length`` declares it."""
    from jitlint.source import may_declare_static_fields

    declares = b"class C:\n    length: int = eqx.field(static=True)\n"
    assert may_declare_static_fields(declares, "length")
    assert not may_declare_static_fields(declares, "len")  # (a whole word)
    assert not may_declare_static_fields(b"class C:\n    length: int\n", "length")  # nothing static
    assert not may_declare_static_fields(b"x = eqx.field(static=True)\nmax_length = 3\n", "length")



def test_a_model_rebuilt_from_classes_of_another_module_is_equal_each_run():
    """JIT503: `self._model = model_class(width=self.width)`, the class one of two classes of another module
    chosen by a fixed setting, stores an equal model at each run of the re-initialiser; a factory function
    of that module is not known to (its result is not known to depend on its arguments only)."""
    root = os.path.join(os.path.dirname(__file__), "fixtures", "project", "rebuild_pkg")
    _check_package(root, ("workloads.py", "models.py", "__init__.py"))


_SCRIPT = """import jax


def loss(x):
    if x.sum() > 0:
        return x.sum()
    return -x.sum()


FAST_LOSS = jax.jit(loss)
print(loss(jax.numpy.ones(3)))
"""


def test_a_wrapper_that_nothing_in_a_script_reads_traces_nothing(tmp_path, monkeypatch):
    """A script (a module nothing in its project imports) that makes `FAST_LOSS = jax.jit(loss)` and never
    reads it calls `loss` eagerly only: making the wrapper traces nothing (JAX 0.10.2), so the Python `if`
    in `loss` is not traced code.  Once another module imports the wrapper, a call of it may trace
    `loss`, and the `if` is reported."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "script.py").write_text(_SCRIPT)
    results = lint_files([str(tmp_path / "script.py")], Config())
    assert [d.code for r in results for d in r.diagnostics] == []
    (tmp_path / "use.py").write_text("from script import FAST_LOSS\n\nprint(FAST_LOSS(2.0))\n")
    monkeypatch.setattr(runner, "_LISTINGS", {})  # (a listing is reused for a few seconds)
    results = lint_files([str(tmp_path / "script.py")], Config())
    assert [(d.line, d.code) for r in results for d in r.diagnostics] == [(5, "JIT201")]


def test_a_public_wrapper_of_a_package_module_is_its_api(tmp_path):
    """In a package, a module-level `FAST_LOSS = jax.jit(loss)` that nothing in the project reads is still
    there for other code to import and call (a library's API, as `jax.jit`-wrapped helpers are): `loss` is
    traced code through it.  A private one, `_FAST_LOSS`, is not."""
    (tmp_path / "pyproject.toml").write_text("")
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "lib.py").write_text(_SCRIPT)
    results = lint_files([str(pkg / "lib.py")], Config())
    assert [(d.line, d.code) for r in results for d in r.diagnostics] == [(5, "JIT201")]
    (pkg / "lib.py").write_text(_SCRIPT.replace("FAST_LOSS", "_FAST_LOSS"))
    results = lint_files([str(pkg / "lib.py")], Config())
    assert [d.code for r in results for d in r.diagnostics] == []


_CONFIG_MODULE = """import jax
import jax.numpy as jnp

_SCALE = 1.0


def load_config(value):
    global _SCALE
    _SCALE = float(value)


def scale():
    return _SCALE


@jax.jit
def step(x):
    return x * scale()
"""

_MAIN = """import sys

from config import load_config, step


def read_value(argv):
    return argv[1] if len(argv) > 1 else "2.0"


def train():
    return step(1.0)


def main(argv):
{body}


if __name__ == "__main__":
    main(sys.argv)
"""


def _startup_project(tmp_path, body, cache_dir=None):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "config.py").write_text(_CONFIG_MODULE)
    (tmp_path / "main.py").write_text(_MAIN.format(body=body))
    results = lint_files([str(tmp_path / "config.py")], Config(), cache_dir=cache_dir)
    return [(d.line, d.code) for r in results for d in r.diagnostics]


def test_a_global_set_only_while_the_program_starts_is_read_as_set(tmp_path, monkeypatch):
    """JIT101: a module's setting (`_SCALE`, set by `load_config`) read in traced code is not stale when every
    call of the setter, in the project, runs at the start of the program: in `main` (run by `if __name__ ==
    "__main__":`) before anything that may trace, after nothing but calls outside the project and plain
    helpers (JAX 0.10.2: the jitted step gives the eager value).  Set after a traced call, in a loop, or by
    a setter nothing in the project calls (its callers unknown), the read is stale and reported; the
    cache follows the importers' text."""
    monkeypatch.setattr(runner, "_LISTINGS", {})
    assert _startup_project(tmp_path, "    load_config(read_value(argv))\n    print(train())") == []
    monkeypatch.setattr(runner, "_LISTINGS", {})
    nested = "    if len(argv) > 2:\n        print(argv)\n    else:\n        load_config(read_value(argv))\n    train()"
    assert _startup_project(tmp_path, nested) == []
    stale = [(13, "JIT101")]
    for body in ("    print(train())\n    load_config(read_value(argv))\n    print(train())",
                 "    for value in argv[1:]:\n        load_config(value)\n        print(train())",
                 "    print(train(), load_config(read_value(argv)))",
                 "    print(argv)"):
        monkeypatch.setattr(runner, "_LISTINGS", {})
        assert _startup_project(tmp_path, body) == stale, body
    # handed to a JAX transform, not run once: `main` runs in each trace, after the traced calls
    (tmp_path / "config.py").write_text(_CONFIG_MODULE)
    (tmp_path / "main.py").write_text(_MAIN.format(body="    load_config(argv)\n    return train()").replace(
        "    main(sys.argv)", "    import jax\n    print(jax.jit(main)(2.0))"))
    monkeypatch.setattr(runner, "_LISTINGS", {})
    assert stale[0] in [(d.line, d.code) for r in lint_files([str(tmp_path / "config.py")], Config())
                        for d in r.diagnostics]  # (with the write in the trace, JIT102)
    cache = str(tmp_path / "cache")
    monkeypatch.setattr(runner, "_LISTINGS", {})
    assert _startup_project(tmp_path, "    load_config(read_value(argv))\n    print(train())", cache) == []
    (tmp_path / "sweep.py").write_text("from config import load_config\nfrom main import train\n\n"
                                       "for v in (1.0, 2.0):\n    load_config(v)\n    train()\n")
    monkeypatch.setattr(runner, "_LISTINGS", {})
    results = lint_files([str(tmp_path / "config.py")], Config(), cache_dir=cache)
    assert [(d.line, d.code) for r in results for d in r.diagnostics] == stale  # (a new importer)


_MAIN_SETS_GLOBAL = """import jax
import jax.numpy as jnp

rho_bar = 0.0


@jax.jit
def update(psi):
    return psi - rho_bar


def main():
    psi = jnp.arange(4.0)
    global rho_bar
{body}
    return psi


if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize("body, found", [
    # set by `main` itself before its jitted loop: the trace reads the value set (JAX 0.10.2: equal to eager)
    ("    rho_bar = psi.mean()\n    for _ in range(3):\n        psi = update(psi)", []),
    # the loop first, the setting after, the loop again: the second loop runs the first trace (stale)
    ("    psi = update(psi)\n    rho_bar = psi.mean()\n    psi = update(psi)", [(9, "JIT101")]),
])
def test_a_global_main_sets_before_tracing(tmp_path, monkeypatch, body, found):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "run.py").write_text(_MAIN_SETS_GLOBAL.format(body=body))
    monkeypatch.setattr(runner, "_LISTINGS", {})
    results = lint_files([str(tmp_path / "run.py")], Config())
    assert [(d.line, d.code) for r in results for d in r.diagnostics] == found


def test_a_cached_result_that_read_another_modules_importers_follows_them(tmp_path, monkeypatch):
    """The jitted step lives in `model.py` and reads `config.py`'s setting: whether the read is stale
    depends on who imports `config.py`, which the cache of `model.py`'s analysis records: a new module
    that sets the value between traced calls makes the read reported on the next cached run."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "config.py").write_text(_CONFIG_MODULE.split("\n\n@jax.jit")[0] + "\n")
    (tmp_path / "model.py").write_text("import jax\n\nfrom config import scale\n\n\n@jax.jit\ndef step(x):\n"
                                       "    return x * scale()\n")
    (tmp_path / "main.py").write_text(_MAIN.format(body="    load_config(read_value(argv))\n    print(train())")
                                      .replace("from config import load_config, step",
                                               "from config import load_config\nfrom model import step"))
    cache = str(tmp_path / "cache")
    files = [str(tmp_path / name) for name in ("config.py", "model.py", "main.py")]
    monkeypatch.setattr(runner, "_LISTINGS", {})
    assert [d.code for r in lint_files(files, Config(), cache_dir=cache) for d in r.diagnostics] == []
    (tmp_path / "sweep.py").write_text("from config import load_config\nfrom main import train\n\n"
                                       "for v in (1.0, 2.0):\n    load_config(v)\n    train()\n")
    monkeypatch.setattr(runner, "_LISTINGS", {})
    results = lint_files(files, Config(), cache_dir=cache)
    assert [(os.path.basename(r.path), d.line, d.code) for r in results for d in r.diagnostics] == [
        ("config.py", 13, "JIT101")]


LIE = os.path.join(os.path.dirname(__file__), "fixtures", "project", "lie_pkg")


def test_class_variables_of_the_classes_a_package_reexports():
    """`import lie`, a package whose `__init__` imports its classes by name from private modules: on an
    unannotated jitted parameter, a size those classes declare `ClassVar` (class-level, never a pytree
    field) is static; a data field of the same classes used as a shape stays reported."""
    _check_package(LIE, ("check_jlog.py", os.path.join("lie", "__init__.py"), os.path.join("lie", "_base.py"),
                         os.path.join("lie", "_so2.py")))


RUN_CONFIG = {
    "pkg/__init__.py": "",
    "pkg/ppo.py": (
        "import dataclasses\n\nimport jax\n\n\n@jax.tree_util.register_dataclass\n@dataclasses.dataclass\n"
        "class PPOConfig:\n    lr: float\n    rollout_steps: int = dataclasses.field(metadata={'static': True})\n"),
    "pkg/experiment_config.py": (
        "import dataclasses\n\nimport jax\n\nfrom .ppo import PPOConfig\n\n\n@jax.tree_util.register_dataclass\n"
        "@dataclasses.dataclass\nclass AgentState:\n    ppo_config: PPOConfig\n    weights: jax.Array\n"),
    "pkg/run.py": (
        "from functools import partial\n\nimport jax\n\nfrom .experiment_config import AgentState\n\n\n"
        "@jax.jit\ndef rollout(runner_state):\n"
        "    steps = runner_state[0].ppo_config.rollout_steps\n"
        "    def body(carry, _):\n        return carry + 1.0, carry\n"
        "    return jax.lax.scan(body, runner_state[1], None, steps)  # expect: JIT402\n"),
}


@pytest.mark.parametrize("declared, stale", [("metadata={'static': True}", False), ("default=4", True)])
def test_a_field_declared_static_by_a_class_of_a_module_imported_by_an_imported_one(tmp_path, declared, stale):
    """An object of unknown class read in a jitted function (`runner_state[0].ppo_config`): a field name
    that the classes of the modules it imports -- and of those they import, which define what their
    classes hold (`AgentState.ppo_config: PPOConfig`) -- declare only static is a Python value (JAX 0.10.2:
    `lax.scan` runs 7 steps); declared a leaf, it is a tracer and `lax.scan` raises."""
    for name, text in RUN_CONFIG.items():
        path = tmp_path / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(text.replace("metadata={'static': True}", declared))
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    [result] = lint_files([str(tmp_path / "pkg" / "run.py")], Config())
    assert [d.code for d in result.diagnostics] == (["JIT402"] if stale else [])


def test_a_file_outside_every_project_gets_the_same_findings_whatever_else_is_checked(tmp_path):
    """Whether the importers of a script in a folder with no project marker are known must not depend on the
    other folders the same command checks: a global that `main` sets before its jitted loop is reported
    alike (who imports the script, and calls `main` when, is not known), alone and next to a project."""
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "run.py").write_text(
        "import jax\nimport jax.numpy as jnp\n\nSCALE = jnp.nan\n\n\n@jax.jit\ndef step(x):\n"
        "    return x * SCALE\n\n\ndef main():\n    global SCALE\n    SCALE = 2.0\n    return step(jnp.ones(3))\n\n\n"
        "if __name__ == \"__main__\":\n    main()\n", encoding="utf-8")
    other = tmp_path / "lib"
    other.mkdir()
    (other / "pyproject.toml").write_text("[project]\nname = 'lib'\n", encoding="utf-8")
    (other / "ops.py").write_text("import jax\n\n\n@jax.jit\ndef double(x):\n    return 2 * x\n", encoding="utf-8")
    run = str(scripts / "run.py")
    alone = lint_files([run], Config(), roots=[str(scripts)])
    both = lint_files([run, str(other / "ops.py")], Config(), roots=[str(scripts), str(other)])
    found = [(d.line, d.code) for d in alone[0].diagnostics]
    assert found == [(9, "JIT101")]
    assert [(d.line, d.code) for d in both[0].diagnostics] == found


FLAGS = os.path.join(os.path.dirname(__file__), "fixtures", "project", "flags_pkg")


def test_flags_of_a_package_module():
    """A package module's public `DEBUG = False` may be set from outside before the first trace: its
    branch stays traced code; a private flag of a module nothing imports is known False there."""
    _check_package(FLAGS, ("ops.py", "__init__.py"))


HOOKS = os.path.join(os.path.dirname(__file__), "fixtures", "project", "hooks_pkg")


def test_a_construction_hook_that_a_base_class_of_another_module_runs():
    """A subclass overrides `_build_heads`, which the base class's `__init__` (another module) calls: what the
    override binds is construction state, not a change a jitted method with `self` static misses; a subclass
    that also calls the hook from a later method (`reset`) changes it after construction (JIT503)."""
    _check_package(HOOKS, ("dqn.py", "base.py", "__init__.py"))


def test_an_import_of_a_namespace_package_under_the_scripts_folder(tmp_path):
    """`src/algorithms/nn/dqn.py` imports `algorithms.nn.base` (no `__init__.py`: a namespace package of the
    scripts' folder `src/`, on `sys.path` when they run): the base class is found, and its construction hook
    with it."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    nn = tmp_path / "src" / "algorithms" / "nn"
    nn.mkdir(parents=True)
    with open(os.path.join(HOOKS, "base.py"), encoding="utf-8") as fh:
        (nn / "base.py").write_text(fh.read())
    with open(os.path.join(HOOKS, "dqn.py"), encoding="utf-8") as fh:
        (nn / "dqn.py").write_text(fh.read().replace("from hooks_pkg.base import", "from algorithms.nn.base import"))
    found = subprocess.run([sys.executable, "-m", "jitlint", "check", "--no-cache", "--format", "json", str(tmp_path)],
                           capture_output=True, text=True, cwd=tmp_path)
    rows = json.loads(found.stdout)
    assert sorted((os.path.basename(r["path"]), r["line"], r["code"]) for r in rows) == [("dqn.py", 29, "JIT503")]



LATCH = os.path.join(os.path.dirname(__file__), "fixtures", "project", "latch_pkg")


def test_a_run_once_initialiser_whose_latch_a_base_class_in_another_module_sets():
    """`if self.initialized and not reinitialize: return`, then `super().Initialize()`: the latch is set by the
    base class's `Initialize`, two modules up through a middle class's own `super()` call -- the initialiser runs
    once per object and the jitted method with `self` static reads the one table it drew; a guard on a flag that
    no class sets keeps its finding (run on JAX 0.10.2: equal to eager after a second `Initialize()`; the other
    stale after a second `prepare()`)."""
    _check_package(LATCH, ("transient.py", "thermal.py", "base.py", "__init__.py"))


CONSTRUCT = os.path.join(os.path.dirname(__file__), "fixtures", "project", "construct_pkg")


def test_an_initialiser_the_base_class_in_another_module_calls_with_the_construction_values():
    """`self._initialize_(*self.args, **self.kwargs)` in the base class's `train` (another module), with `args` and
    `kwargs` bound only by `__init__`: each run stores the same data, so the jitted method with `self` static is
    not stale; a subclass whose own method calls the initialiser with new data keeps the finding (run on JAX
    0.10.2: jit equals eager after a second `train()`; the refit is stale)."""
    _check_package(CONSTRUCT, ("lasso.py", "basemodel.py", "__init__.py"))

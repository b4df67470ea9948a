"""``--cross-check cpu``: the original and the fixed version run again on a CPU device and compared.

There is no accelerator here, so the path is exercised on two CPU configurations:

* one CPU device (``JAX_PLATFORMS=cpu``): the cross-check runs on the very device of the main run,
  and must find the results identical;
* two host devices (``XLA_FLAGS=--xla_force_host_platform_device_count=2``): the main run uses
  ``cpu:0`` and the cross-check ``cpu:1``, a device of its own -- the situation of a GPU main run
  checked against the CPU.  A function whose result depends on the device it runs on (as a GPU
  kernel that rounds otherwise would) stands for a real discrepancy: it must be a mismatch.
"""
from __future__ import annotations

import importlib.util
import json
import textwrap

import pytest

from jitlint.cli import main
from jitlint.engine import lint_source
from jitlint.verify import VerifyOptions, verify_module
from jitlint.verify.report import MISMATCH, VERIFIED

pytestmark = pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax is not installed")


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


ORIGINAL = src('''
    import jax
    import jax.numpy as jnp


    def _offset():
        # 0 on the first device, 1 on any other: a stand-in for a device whose kernels differ
        device = jax.config.jax_default_device
        return 0.0 if device is None or device.id == 0 else 1.0


    @jax.jit
    def shifted(x):
        if x.sum() > 0:
            return x + _offset()
        return x - _offset()


    @jax.jit
    def halved(x):
        if x.sum() > 0:
            return x / 2
        return x * 2


    EXAMPLES = {"shifted": [((jnp.arange(3.0),), {})], "halved": [((jnp.arange(3.0),), {})]}
''')
FIXED = ORIGINAL.replace('''    if x.sum() > 0:
        return x + _offset()
    return x - _offset()''', "    return jnp.where(x.sum() > 0, x + _offset(), x - _offset())").replace(
    '''    if x.sum() > 0:
        return x / 2
    return x * 2''', "    return jnp.where(x.sum() > 0, x / 2, x * 2)")
assert FIXED.count("jnp.where") == 2


def _verify(tmp_path, monkeypatch, devices: int):
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    if devices > 1:
        monkeypatch.setenv("XLA_FLAGS", f"--xla_force_host_platform_device_count={devices}")
    else:
        monkeypatch.delenv("XLA_FLAGS", raising=False)
    path = tmp_path / "devices.py"
    path.write_text(ORIGINAL)
    diags = lint_source(ORIGINAL, str(path)).diagnostics
    options = VerifyOptions(cross_device=True, timeout=90)
    report = verify_module(str(path), ORIGINAL, FIXED, diags, options=options, include_findings=False)
    return report, {v.qualname: v for v in report.verdicts}


def test_one_cpu_device_cross_checks_on_the_same_device_and_agrees(tmp_path, monkeypatch):
    report, verdicts = _verify(tmp_path, monkeypatch, devices=1)
    assert report.device == "cpu"
    for name in ("shifted", "halved"):
        v = verdicts[name]
        assert v.verdict == VERIFIED, (v.verdict, v.summary, v.details)
        cross = v.raw["cross_device"]
        assert cross["same_device"] and cross["cpu"] == "cpu:0" and cross["ok"] and cross["cpu_equivalent"]
        # both branch sides were reached, and the cross-check ran every one of those inputs
        assert cross["inputs"] == v.raw["inputs"] + v.raw["generated"] >= 2
        assert cross["max_abs"] == 0.0 and cross["max_rel"] == 0.0
        assert any(d.startswith("cross-check on cpu:0 (the same device) against cpu, ") and "agree" in d
                   for d in v.details), v.details


def test_two_cpu_devices_a_device_dependent_result_is_a_mismatch(tmp_path, monkeypatch):
    report, verdicts = _verify(tmp_path, monkeypatch, devices=2)
    good, bad = verdicts["halved"], verdicts["shifted"]
    assert good.verdict == VERIFIED, (good.summary, good.details)
    assert good.raw["cross_device"]["cpu"] == "cpu:1" and not good.raw["cross_device"]["same_device"]
    assert good.raw["cross_device"]["max_abs"] == 0.0
    # on cpu:0 the fix matches the original, and on cpu:1 too; the devices differ by the offset, 1.0
    assert bad.verdict == MISMATCH, (bad.summary, bad.details)
    assert [c["ok"] for c in bad.raw["comparisons"]] == [True] * len(bad.raw["comparisons"])
    cross = bad.raw["cross_device"]
    assert cross["cpu_equivalent"] and not cross["ok"]
    assert cross["max_abs"] == pytest.approx(1.0)
    assert cross["max_rel"] >= 1.0 / 3.0
    assert "DIFFER beyond tolerance" in bad.summary and "largest difference 1 abs" in bad.summary


def test_the_command_line_reports_the_largest_difference_in_text_and_json(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    monkeypatch.setenv("XLA_FLAGS", "--xla_force_host_platform_device_count=2")
    original, fixed = tmp_path / "devices.py", tmp_path / "devices_fixed.py"
    original.write_text(ORIGINAL)
    fixed.write_text(FIXED)
    code = main(["verify", "--isolated", "--cross-check", "cpu", "--format", "json", "--fixed", str(fixed),
                 str(original)])
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    by_name = {f["function"]: f for f in data["functions"]}
    assert by_name["shifted"]["verdict"] == MISMATCH and by_name["halved"]["verdict"] == VERIFIED
    assert by_name["shifted"]["cross_check"]["max_abs"] == pytest.approx(1.0)
    assert by_name["halved"]["cross_check"]["max_abs"] == 0.0
    code = main(["verify", "--isolated", "--cross-check", "cpu", "--fixed", str(fixed), str(original)])
    text = capsys.readouterr().out
    assert code == 1
    assert "cross-check on cpu:1 against cpu, " in text
    assert "the devices DIFFER beyond tolerance; largest difference 1 abs" in text
    assert "the devices agree; largest difference 0 abs, 0 rel" in text

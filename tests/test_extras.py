"""A missing extra gives one line naming the ``pip install`` to run, never a traceback.

Each case runs Python in a subprocess where the extra's modules are hidden (a
``sitecustomize`` puts None in ``sys.modules`` for them, so importing them fails as if
they were not installed), rather than uninstalling anything.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from oa_core.extras import EXTRAS, MissingExtra, check, install_command, require

ROOT = Path(__file__).resolve().parent.parent
SITECUSTOMIZE = """\
import os, sys
for name in os.environ.get("OA_TEST_HIDE", "").split(","):
    if name:
        sys.modules[name] = None
"""


def run_hiding(tmp_path: Path, hidden: str, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = {**os.environ, "OA_TEST_HIDE": hidden,
           "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)


def test_oa_explore_without_streamlit(tmp_path: Path) -> None:
    done = run_hiding(tmp_path, "streamlit", "-m", "oa_core.cli", "explore", "--port", "8999")
    assert done.returncode == 1
    assert done.stderr == ("oa: error: the explorer extra is not installed (no module named "
                           "streamlit); fix: pip install 'object-aligner-explorer[explorer]'\n")
    assert done.stdout == ""


def test_oa_explore_without_pyvis(tmp_path: Path) -> None:
    done = run_hiding(tmp_path, "pyvis", "-m", "oa_core.cli", "explore")
    assert done.returncode == 1 and "no module named pyvis" in done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1


def test_core_commands_need_no_extra(tmp_path: Path) -> None:
    """``oa score`` and the DSPy adapter work with every extra hidden."""
    hidden = "streamlit,plotly,pyvis,pyarrow,ipywidgets,dask,distributed,dspy,inspect_ai," \
             "pydantic_evals,langsmith,openevals"
    example = ROOT / "sample_data" / "running_example"
    done = run_hiding(tmp_path, hidden, "-m", "oa_core.cli", "score", str(example / "gold.json"),
                      str(example / "candidate.json"), "-s", str(example / "schema.json"))
    assert done.returncode == 0, done.stderr
    assert "0.7678571428571429" in done.stdout
    code = ("from oa_core.adapters.dspy import dspy_metric\n"
            "m = dspy_metric({'type': 'object'})\n"
            "print(type(m({'answer': '{}'}, {'answer': '{}'})).__name__)")
    done = run_hiding(tmp_path, hidden, "-c", code)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "MetricResult\n"


@pytest.mark.parametrize(("module", "hidden", "extra"), [
    ("oa_core.adapters.inspect_ai", "inspect_ai", "inspect"),
    ("oa_core.adapters.pydantic_evals", "pydantic_evals", "pydantic-evals"),
])
def test_adapter_without_its_framework(tmp_path: Path, module: str, hidden: str,
                                       extra: str) -> None:
    code = ("import sys\n"
            "from oa_core.extras import MissingExtra\n"
            "try:\n"
            f"    import {module}\n"
            "except MissingExtra as exc:\n"
            "    print(exc.extra, exc.module, exc, sep='|')\n"
            "    sys.exit(3)\n")
    done = run_hiding(tmp_path, hidden, "-c", code)
    assert done.returncode == 3, done.stderr
    assert done.stdout == (f"{extra}|{hidden}|the {extra} extra is not installed (no module "
                           f"named {hidden}); fix: pip install "
                           f"'object-aligner-explorer[{extra}]'\n")


def test_require_and_check(monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    assert require("notebook", "json") is json
    monkeypatch.setitem(sys.modules, "ipywidgets", None)
    with pytest.raises(MissingExtra) as info:
        require("notebook", "ipywidgets")
    assert isinstance(info.value, ImportError) and info.value.name == "ipywidgets"
    assert str(info.value).endswith("fix: pip install 'object-aligner-explorer[notebook]'")
    with pytest.raises(MissingExtra, match="no module named ipywidgets"):
        check("notebook", "json", "ipywidgets")
    with pytest.raises(MissingExtra, match=r"no module named no_pkg_here\.sub"):
        check("notebook", "no_pkg_here.sub")
    with pytest.raises(ValueError, match="unknown extra 'widgets'"):
        require("widgets", "json")


def test_a_broken_dependency_is_not_called_a_missing_extra(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """The framework is there but one of its own imports fails: that error, unchanged."""
    (tmp_path / "halfthere.py").write_text("import no_such_dependency_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError) as info:
        require("inspect", "halfthere")
    assert not isinstance(info.value, MissingExtra)
    assert info.value.name == "no_such_dependency_xyz"


def test_every_extra_is_in_pyproject() -> None:
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    assert set(EXTRAS) <= set(declared)
    test_extra = " ".join(declared["test"])
    for extra in EXTRAS:  # scripts/test installs .[test]: every extra, so every test runs
        assert extra in test_extra, extra
    assert install_command("dask") == "pip install 'object-aligner-explorer[dask]'"

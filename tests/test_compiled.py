"""The compiled build (``OA_COMPILE=1``, mypyc) behaves as pure Python, bit for bit.

The package is built the way the README says (``pip install --no-build-isolation``
with ``OA_COMPILE=1``) into a temporary folder, once for this module. Then:

- :mod:`benchmarks.bits` dumps its corpus (every sample, Org2Graph, flat and list
  pairs, a 60-person graph and 300 hostile fuzz triples with their custom comparators,
  in the three WL modes: scores, match trees, pairs, deltas, errors) with that build
  and with the sources, and the dumps must be equal;
- the engine's rule, error and property tests run again against that build.

A compiled module converts a value annotated ``float`` into a float and compares an
int with a float by converting the int: both changed scores of huge integers before
they were written around (see ``setup.py``), which is what these tests guard. About
two and a half minutes, most of it the C compiler.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

with (ROOT / "pyproject.toml").open("rb") as _handle:
    COMPILED = sorted(Path(path).stem for path in
                      tomllib.load(_handle)["tool"]["object-aligner"]["compiled"])

# The engine's tests that run again on the compiled build (the app's and the slow
# hypothesis comparisons of fast paths are left to the pure run).
ENGINE_TESTS = ["test_leaves.py", "test_engine_defects.py", "test_schema.py",
                "test_running_example.py", "test_referential.py", "test_maps.py",
                "test_sequences.py", "test_speed_assignment.py",
                "test_speed_scoreonly.py", "test_blocking.py", "test_properties.py"]

pytestmark = pytest.mark.skipif(
    shutil.which("cc") is None or importlib.util.find_spec("mypyc") is None,
    reason="the compiled build needs a C compiler and mypy (the test extra)")


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder the compiled package was installed into."""
    work = tmp_path_factory.mktemp("compiled")
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "oa_core", source / "oa_core",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    target = work / "installed"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--no-build-isolation", "--no-compile", "--target", str(target),
                    str(source)], env={**os.environ, "OA_COMPILE": "1"}, check=True,
                   timeout=900, cwd=work)
    return target


def _run(pythonpath: list[Path], cwd: Path, *args: str) -> None:
    # The first entry of PYTHONPATH decides which oa_core runs: cwd has none of its own.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, pythonpath))}
    subprocess.run([sys.executable, *args], cwd=cwd, env=env, check=True, timeout=900)


@pytest.mark.timeout(1200)
def test_the_compiled_build_gives_the_same_bits(compiled: Path, tmp_path: Path) -> None:
    dumps = {}
    for name, path in (("compiled", [compiled, ROOT]), ("pure", [ROOT])):
        out = tmp_path / f"{name}.json"
        _run(path, tmp_path, "-m", "benchmarks.bits", "--hostile", "300", "--out", str(out))
        dumps[name] = json.loads(out.read_text())
    compiled_dump, pure = dumps["compiled"], dumps["pure"]
    assert compiled_dump["engine"] == f"compiled (mypyc): {', '.join(COMPILED)}"
    assert pure["engine"] == "pure Python"
    assert len(pure["cases"]) >= 400 and set(compiled_dump["cases"]) == set(pure["cases"])
    differing = [name for name in pure["cases"]
                 if pure["cases"][name] != compiled_dump["cases"][name]]
    assert not differing, f"the compiled build differs on {differing[:10]}"


@pytest.mark.timeout(1200)
def test_the_engine_tests_pass_on_the_compiled_build(compiled: Path) -> None:
    # oa_core is imported (from the build) before pytest puts the repository first on
    # sys.path, so every test module then gets the compiled package.
    program = (
        "import sys, oa_core, oa_core.build, pytest\n"
        f"assert oa_core.__file__.startswith({str(compiled)!r}), oa_core.__file__\n"
        f"assert list(oa_core.build.compiled_modules()) == {COMPILED!r}\n"
        "sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', *sys.argv[1:]]))\n")
    _run([compiled, ROOT], compiled.parent, "-c", program,
         *(str(ROOT / "tests" / name) for name in ENGINE_TESTS))

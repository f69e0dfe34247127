"""The stages import downwards only (docs/architecture.md): physics/ is numeric code that
knows nothing of YAML, the compiler, control or the Simulation; spec/, compiler/ and
control/ never reach up into simulate/. Read from the source (every import, lazy ones
inside functions too), so a violation fails here before it forms an import cycle."""
import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pipeline"
NUMERIC = {"numpy", "numba", "scipy", "math"}
PHYSICS_MAY_IMPORT = ("pipeline.physics", "pipeline.collision", "pipeline.errors", "pipeline.nrt",
                      "pipeline._numba_cache")


def _modules(folder: str) -> list[Path]:
    return sorted((PACKAGE / folder).rglob("*.py"))


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, dotted module) of every import in a file, relative ones resolved;
    `from pipeline import errors` counts as pipeline.errors (a name that is a submodule)."""
    package = path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            parts = list(package[:len(package) - node.level + 1]) if node.level else []
            base = ".".join(parts + ([node.module] if node.module else []))
            for alias in node.names:
                sub = PACKAGE.parent.joinpath(*base.split("."), alias.name)
                is_module = sub.is_dir() or sub.with_suffix(".py").is_file()
                found.append((node.lineno, f"{base}.{alias.name}" if is_module else base))
    return sorted(found)


def _under(module: str, prefixes) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _offending(folder: str, allowed) -> list[str]:
    return [f"{path.relative_to(PACKAGE.parent)}:{line}: imports {module}"
            for path in _modules(folder) for line, module in _imports(path) if not allowed(module)]


def test_the_scan_sees_every_kind_of_import(tmp_path, monkeypatch):
    folder = tmp_path / "pipeline" / "physics"
    folder.mkdir(parents=True)
    for empty in (folder / "aba.py", tmp_path / "pipeline" / "errors.py"):
        empty.write_text("")
    (folder / "m.py").write_text("import os\nfrom pipeline import errors\nfrom . import aba\n"
                                 "def f():\n    from ..spec.units import to_si\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", tmp_path / "pipeline")
    assert [m for _, m in _imports(folder / "m.py")] == [
        "os", "pipeline.errors", "pipeline.physics.aba", "pipeline.spec.units"]


def test_physics_imports_only_itself_errors_and_numeric_libraries():
    def allowed(module):
        top = module.split(".")[0]
        if top == "pipeline":
            return _under(module, PHYSICS_MAY_IMPORT)
        return top in NUMERIC or top in sys.stdlib_module_names

    assert _offending("physics", allowed) == []


@pytest.mark.parametrize("folder", ["compiler", "control", "spec", "physics", "particles"])
def test_stages_below_the_simulation_never_import_it(folder):
    assert _offending(folder, lambda m: not _under(m, ["pipeline.simulate"])) == []


@pytest.mark.parametrize("folder", ["compiler", "control", "spec", "physics", "particles", "simulate"])
def test_stages_below_export_and_batch_never_import_them(folder):
    assert _offending(folder, lambda m: not _under(m, ["pipeline.export", "pipeline.batch",
                                                       "pipeline.run"])) == []


def test_collision_imports_only_itself_and_numeric_libraries():
    """pipeline.collision sits below physics (the contact kernels call it); its kernels that
    the step loop reaches are declared with pipeline.nrt."""
    def allowed(module):
        top = module.split(".")[0]
        if top == "pipeline":
            return _under(module, ("pipeline.collision", "pipeline.nrt"))
        return top in NUMERIC or top in sys.stdlib_module_names

    assert _offending("collision", allowed) == []


def test_characters_write_documents_and_import_no_stage_above_the_compiler():
    """pipeline/characters writes creature documents: it may read the spec stage and the
    compiler's closed-form volumes, never control, the simulation or what comes after."""
    above = ["pipeline.control", "pipeline.physics", "pipeline.simulate", "pipeline.export", "pipeline.batch",
             "pipeline.run", "pipeline.evolve"]
    assert _offending("characters", lambda m: not _under(m, above)) == []


def test_spec_never_imports_physics():
    assert _offending("spec", lambda m: not _under(m, ["pipeline.physics"])) == []

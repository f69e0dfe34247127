"""Triangle-grid terrain (corpus `addtrigrid`, `groundtype trigrid`) from an inline height
array, a .npy / .csv / PNG heightmap, or generators summed together (seeded value noise,
a slope, stairs, stepping stones). Returns the grid the kernels read
(pipeline/physics/contact/surface.py)."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from pipeline.compiler.cache import note_read
from pipeline.compiler.environment import number
from pipeline.errors import CorpusError, Problem
from pipeline.spec.includes import project_root


def _pair(value, path: str) -> tuple[float, float]:
    if isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise CorpusError(Problem("expected two values [x, y]", path=path))
        return number(value[0], f"{path}[0]"), number(value[1], f"{path}[1]")
    v = number(value, path)
    return v, v


def _read_file(ground: dict, path: str) -> np.ndarray:
    file = Path(ground["file"])
    if not file.is_absolute() and ground.get("base_dir"):
        base = Path(ground["base_dir"]).resolve()
        file = (base / file).resolve()
        root = project_root(base)
        if root not in file.parents:  # the include rule: files stay inside the project
            raise CorpusError(Problem(f"refused: {ground['file']!r} is outside the project ({root})",
                                      path=path))
    if not file.is_file():
        raise CorpusError(Problem(f"height file not found: {file}", path=path))
    note_read(file)
    suffix = file.suffix.lower()
    try:
        if suffix == ".npy":
            h = np.load(file, allow_pickle=False)
        elif suffix == ".csv":
            h = np.loadtxt(file, delimiter=",", ndmin=2)
        elif suffix == ".png":
            import imageio.v3 as iio
            img = np.asarray(iio.imread(file))
            full = np.iinfo(img.dtype).max if img.dtype.kind in "ui" else 1.0
            if img.ndim == 3:  # colour: use the mean of the colour channels
                img = img[..., :3].mean(axis=2)
            # image row 0 is the top of the picture, i.e. the far (+y) edge
            h = img[::-1].astype(float) / full
        else:
            raise CorpusError(Problem(f"unknown height file type {suffix!r} (use .npy, .csv or .png)", path=path))
    except (OSError, ValueError) as exc:
        raise CorpusError(Problem(f"cannot read height file {file}: {exc}", path=path)) from None
    return np.asarray(h, float) * number(ground.get("height_scale", 1.0), "ground.height_scale")


def value_noise(x: np.ndarray, y: np.ndarray, wavelength: float, seed: int, octaves: int) -> np.ndarray:
    """Smooth seeded noise in about [-1, 1]: random lattice values, smoothstep-interpolated;
    each octave halves the wavelength and the amplitude."""
    rng = np.random.default_rng(seed)
    total = np.zeros_like(x)
    amp, norm = 1.0, 0.0
    for _ in range(octaves):
        u = (x - x.min()) / wavelength
        v = (y - y.min()) / wavelength
        lattice = rng.uniform(-1.0, 1.0, (int(v.max()) + 2, int(u.max()) + 2))
        i, j = np.floor(u).astype(int), np.floor(v).astype(int)
        fu, fv = u - i, v - j
        su, sv = fu * fu * (3 - 2 * fu), fv * fv * (3 - 2 * fv)
        a = lattice[j, i] * (1 - su) + lattice[j, i + 1] * su
        b = lattice[j + 1, i] * (1 - su) + lattice[j + 1, i + 1] * su
        total += amp * (a * (1 - sv) + b * sv)
        norm += amp
        amp *= 0.5
        wavelength *= 0.5
    return total / norm


def _generate(gen: dict, dx: float, dy: float, origin, path: str):
    lx, ly = _pair(gen.get("size", [2.0, 2.0]), f"{path}.size")
    nx, ny = int(round(lx / dx)) + 1, int(round(ly / dy)) + 1
    x0, y0 = origin if origin is not None else (-0.5 * (nx - 1) * dx, -0.5 * (ny - 1) * dy)
    x, y = np.meshgrid(x0 + dx * np.arange(nx), y0 + dy * np.arange(ny))
    h = np.zeros_like(x)

    def along(spec, p):  # coordinate along the horizontal direction (radians about z, SI)
        a = number(spec.get("direction", 0.0), f"{p}.direction")
        return math.cos(a) * x + math.sin(a) * y

    if "noise" in gen:
        n, p = gen["noise"], f"{path}.noise"
        h += number(n.get("amplitude", 0.02), f"{p}.amplitude") * value_noise(
            x, y, number(n.get("wavelength", 0.25), f"{p}.wavelength"),
            int(n.get("seed", 0)), int(n.get("octaves", 3)))
    if "slope" in gen:
        s, p = gen["slope"], f"{path}.slope"
        h += math.tan(number(s["angle"], f"{p}.angle")) * along(s, p)
    if "steps" in gen:
        s, p = gen["steps"], f"{path}.steps"
        run = number(s["run"], f"{p}.run")
        rise = number(s["rise"], f"{p}.rise")
        count = int(s.get("count", 1000000))
        n = np.floor((along(s, p) - number(s.get("start", 0.0), f"{p}.start")) / run) + 1
        h += rise * np.clip(n, 0, count)
    if "stepping_stones" in gen:
        s, p = gen["stepping_stones"], f"{path}.stepping_stones"
        size = number(s["size"], f"{p}.size")
        pitch = size + number(s["gap"], f"{p}.gap")
        depth = number(s.get("depth", 0.05), f"{p}.depth")
        jitter = number(s.get("jitter", 0.0), f"{p}.jitter")
        ci, cj = np.floor(x / pitch + 0.5), np.floor(y / pitch + 0.5)
        on = (np.abs(x - ci * pitch) <= 0.5 * size) & (np.abs(y - cj * pitch) <= 0.5 * size)
        rng = np.random.default_rng(int(s.get("seed", 0)))
        lift = rng.uniform(-jitter, jitter, (int(cj.max() - cj.min()) + 1, int(ci.max() - ci.min()) + 1))
        stone = lift[(cj - cj.min()).astype(int), (ci - ci.min()).astype(int)]
        h += np.where(on, stone, -depth)
    return h, (x0, y0)


def build_grid(ground: dict, path: str = "ground") -> tuple[np.ndarray, np.ndarray]:
    """(grid_geom [x0, y0, dx, dy], heights (ny, nx)) for a `ground: {type: grid}` mapping."""
    dx, dy = _pair(ground.get("spacing", 0.05), f"{path}.spacing")
    if dx <= 0 or dy <= 0:
        raise CorpusError(Problem("grid spacing must be positive", path=f"{path}.spacing"))
    origin = _pair(ground["origin"], f"{path}.origin") if "origin" in ground else None
    sources = [k for k in ("heights", "file", "generate") if k in ground]
    if len(sources) != 1:
        raise CorpusError(Problem("a grid ground needs exactly one of heights, file, generate",
                                  path=path))
    if sources[0] == "generate":
        h, origin = _generate(ground["generate"], dx, dy, origin, f"{path}.generate")
    else:
        if sources[0] == "heights":
            rows = ground["heights"]
            if len({len(r) for r in rows}) != 1:
                raise CorpusError(Problem("every row of heights needs the same length",
                                          path=f"{path}.heights"))
            h = np.array([[number(v, f"{path}.heights") for v in r] for r in rows], float)
        else:
            h = _read_file(ground, f"{path}.file")
        if h.ndim != 2 or min(h.shape) < 2:
            raise CorpusError(Problem(f"heights must be a 2-D array of at least 2x2, got shape {h.shape}",
                                      path=f"{path}.{sources[0]}"))
        if origin is None:  # centred on the world origin
            origin = (-0.5 * (h.shape[1] - 1) * dx, -0.5 * (h.shape[0] - 1) * dy)
    if not np.all(np.isfinite(h)):
        raise CorpusError(Problem("terrain heights contain NaN or infinity", path=path))
    return np.array([origin[0], origin[1], dx, dy], float), np.ascontiguousarray(h, float)

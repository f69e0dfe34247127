"""Peak memory of one humanoid run (issue 20): dm_control's humanoid as `corpus convert --as
scene` writes it, simulated in memory (`sim.run`, recording every frame) for --seconds,
beside MuJoCo stepping the same file as long and keeping qpos/qvel of every step, each in a
fresh process, in one run; and where corpus's megabytes go (resident set after each stage).

    .venv/bin/python benchmarks/memory.py [--seconds 5]

Peak is the process's high-water resident set (VmHWM), so it includes the interpreter and
every library each side imports. Goal (issue 20): corpus at most 2x MuJoCo. Beside them, the
floor numba sets: the peak of a bare process that imports numpy and numba and calls one
trivial kernel from numba's cache (compiled by a first process), and the same after
`import pipeline`, which changes how numba starts (pipeline/_numba_start.py).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

STAGES = r"""
import json, sys
def mb(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) / 1024
out = {"python": mb("VmRSS")}
import numpy
out["numpy"] = mb("VmRSS")
import pipeline, numba
out["pipeline + numba imported"] = mb("VmRSS")
sim = pipeline.compile(pipeline.load(sys.argv[1]))
out["scene loaded and compiled"] = mb("VmRSS")
sim.step(1)
out["step kernels loaded (numba cache)"] = mb("VmRSS")
sim.reset()
rec = sim.run(float(sys.argv[2]), progress=False)
out["run done (recording %d frames, %.2f MB of arrays)" % (len(rec.time), sum(
    a.nbytes for a in (rec.time, rec.body_pos, rec.body_quat, rec.q, rec.qd)) / 2**20)] = mb("VmRSS")
out["peak"] = mb("VmHWM")
print(json.dumps(out))
"""

MUJOCO = r"""
import json, sys
def mb(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) / 1024
import numpy as np, mujoco
m = mujoco.MjModel.from_xml_path(sys.argv[1]); d = mujoco.MjData(m)
n = round(float(sys.argv[2]) / m.opt.timestep)
qpos, qvel = np.zeros((n + 1, m.nq)), np.zeros((n + 1, m.nv))
for i in range(n):
    qpos[i], qvel[i] = d.qpos, d.qvel
    mujoco.mj_step(m, d)
print(json.dumps({"peak": mb("VmHWM"), "after": mb("VmRSS")}))
"""

# numba's floor: a bare process calling one trivial cached kernel (FLOOR_KERNEL, importable)
FLOOR_KERNEL = """
import numba

@numba.njit(cache=True)
def total(a):
    s = 0.0
    for x in a:
        s += x
    return s
"""

FLOOR = r"""
import json, sys, numpy
if sys.argv[1] == "corpus":
    import pipeline
import floor_kernel
floor_kernel.total(numpy.ones(3))
print(json.dumps({"peak": [int(l.split()[1]) / 1024 for l in open("/proc/self/status")
                           if l.startswith("VmHWM")][0]}))
"""


def numba_floor(tmp: Path, start: str) -> float:
    """The floor when numba starts as it comes ("bare") or as corpus starts it ("corpus")."""
    (tmp / "floor_kernel.py").write_text(FLOOR_KERNEL)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp), str(ROOT)]),
           "NUMBA_CACHE_DIR": str(tmp / start)}
    for _ in range(2):  # the first compiles into the cache, the second loads from it
        out = subprocess.run([sys.executable, "-c", FLOOR, start], env=env, check=True, capture_output=True,
                             text=True)
    return json.loads(out.stdout)["peak"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "tests"))
    from import_mujoco import model_id, zoo

    source = next(p for p in zoo() if model_id(p) == "suite/humanoid")
    with tempfile.TemporaryDirectory() as tmp:
        scene = Path(tmp) / "humanoid.yaml"
        (Path(tmp) / "corpus.toml").write_text("")
        subprocess.run([sys.executable, "-m", "pipeline.cli", "convert", str(source), "--as", "scene", "-o",
                        str(scene)], check=True, capture_output=True)
        ours = json.loads(subprocess.run([sys.executable, "-c", STAGES, str(scene), str(args.seconds)],
                                         check=True, capture_output=True, text=True).stdout)
        floors = {start: numba_floor(Path(tmp), start) for start in ("bare", "corpus")}
    theirs = json.loads(subprocess.run([sys.executable, "-c", MUJOCO, str(source), str(args.seconds)],
                                       check=True, capture_output=True, text=True).stdout)
    print(f"humanoid, {args.seconds:g} s at 5 ms, resident MB after each stage (corpus):")
    for stage, value in ours.items():
        if stage != "peak":
            print(f"  {value:7.1f}  {stage}")
    print(f"peak: corpus {ours['peak']:.1f} MB, MuJoCo {theirs['peak']:.1f} MB (numpy + mujoco + model + "
          f"states); ratio {ours['peak'] / theirs['peak']:.2f}")
    print(f"numba's floor (numpy, numba and one trivial cached kernel): {floors['bare']:.1f} MB "
          f"({floors['bare'] / theirs['peak']:.2f}x MuJoCo); started as corpus starts it: {floors['corpus']:.1f} MB "
          f"({floors['corpus'] / theirs['peak']:.2f}x); load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

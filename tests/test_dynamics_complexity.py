"""O(n) structurally, without timing: the ABA and RNEA kernels run as plain Python
(NUMBA_DISABLE_JIT) over arrays that count every element read and write. On chains the
count is exactly affine in n (a constant amount of work per body), and on random
branching trees the work per body is bounded by that of the worst joint type. The
wall-clock exponent (goal <= 1.15 from 8 to 256 links) is measured by benchmarks/aba.py."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

COUNT = r'''
import json, sys
import numpy as np
from benchmarks.trees import chain_creature, random_creature, random_state
from pipeline.compiler.build import build_model
from pipeline.physics.aba import aba
from pipeline.physics.rnea import rnea
from pipeline.physics.kinematics import make_workspace


class Counted(np.ndarray):
    touches = 0

    def __getitem__(self, k):
        Counted.touches += 1
        return super().__getitem__(k)

    def __setitem__(self, k, v):
        Counted.touches += 1
        super().__setitem__(k, v)


def counted(tup):
    return tup._replace(**{f: getattr(tup, f).view(Counted) for f in tup._fields})


def touches(model, kernel):
    rng = np.random.default_rng(0)
    q, qd = random_state(model, rng)
    v = rng.normal(size=model.nv).view(Counted)
    w = counted(make_workspace(model.nbody, model.nv))
    tree = counted(model.tree)
    out = np.zeros(model.nv).view(Counted)
    Counted.touches = 0
    if kernel == "aba":
        aba(tree, model.gravity.view(Counted), q.view(Counted), qd.view(Counted), v,
            np.zeros((0, 6)).view(Counted), out, w)
    else:
        rnea(tree, model.gravity.view(Counted), q.view(Counted), qd.view(Counted), v,
             np.zeros((0, 6)).view(Counted), out, w)
    return Counted.touches


res = {}
for kernel in ("aba", "rnea"):
    res[kernel] = {"chain": [touches(build_model(chain_creature(n)), kernel) for n in (8, 16, 32, 64)],
                   "tree": [touches(build_model(random_creature(np.random.default_rng(n), n)), kernel)
                            for n in (10, 40)]}
print(json.dumps(res))
'''


def test_aba_and_rnea_do_constant_work_per_body():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", COUNT], env=env, cwd=ROOT, capture_output=True,
                         text=True, timeout=120, check=True)
    res = json.loads(out.stdout.strip().splitlines()[-1])
    for kernel, counts in res.items():
        c8, c16, c32, c64 = counts["chain"]
        # affine in n: equal increments per added link, whatever n is
        per_link = (c16 - c8) / 8
        assert (c32 - c16) / 16 == per_link and (c64 - c32) / 32 == per_link, (kernel, counts)
        # the criterion, on operation counts instead of seconds (the fixed root
        # costs less than a hinge, so the affine count has a small negative intercept)
        slope = np.polyfit(np.log([8, 16, 32, 64]), np.log(counts["chain"]), 1)[0]
        assert slope <= 1.15, (kernel, slope)
        # branching trees with every joint type: per-body work stays bounded (a free joint
        # costs most: 6x6 D^-1); quadratic work would grow the per-body figure 4x here
        t10, t40 = counts["tree"]
        assert t40 / 40 <= 1.5 * t10 / 10, (kernel, counts)

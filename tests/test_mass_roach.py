"""The bundled roach compiles to the mass properties the McKenna digest derived from the
Appendix C script (digest 6.6: box inertias at density 1000; masses in mg to 3 decimals)."""
from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.compiler.build import build_model

ROACH = Path(__file__).resolve().parents[1] / "creatures" / "roach.yaml"

# body: (mass mg, (Ixx, Iyy, Izz) kg m^2 about the COM, body axes)
DIGEST = {
    "abdomen": (1438.475, (2.471e-08, 3.782e-08, 5.058e-08)),
    "thorax": (490.648, (4.275e-09, 5.738e-09, 7.725e-09)),
    "head": (42.069, (1.633e-10, 1.660e-10, 4.653e-11)),
    "leg_fl0": (21.609, (5.118e-11, 1.588e-11, 5.118e-11)),
    "leg_fl1": (7.260, (2.251e-11, 1.464e-12, 2.251e-11)),
    "leg_fl2": (1.685, (5.096e-12, 7.890e-14, 5.096e-12)),
    "leg_fl3": (0.043, (8.754e-16,) * 3),
    "leg_fl4": (0.221, (6.179e-14, 4.502e-15, 6.179e-14)),
    "leg_ml0": (19.440, (6.357e-11, 1.050e-11, 6.357e-11)),
    "leg_ml1": (2.117, (3.201e-12, 1.779e-13, 3.201e-12)),
    "leg_ml2": (2.669, (2.013e-11, 1.249e-13, 2.013e-11)),
    "leg_ml4": (0.245, (8.417e-14, 5.002e-15, 8.417e-14)),
    "leg_bl0": (35.000, (1.097e-10, 3.646e-11, 1.097e-10)),
    "leg_bl1": (4.235, (4.750e-12, 8.541e-13, 4.750e-12)),
    "leg_bl2": (7.108, (1.181e-10, 5.972e-13, 1.181e-10)),
    "leg_bl4": (0.429, (4.421e-13, 8.754e-15, 4.421e-13)),
}
# distal (subtree) masses of the left legs' joints 0..4, mg
DISTAL = {"f": (30.82, 9.21, 1.95, 0.263, 0.221), "m": (24.51, 5.07, 2.96, 0.288, 0.245),
          "b": (46.81, 11.81, 7.58, 0.472, 0.429)}


@pytest.fixture(scope="module")
def roach():
    return build_model(pipeline.load(str(ROACH)))


def test_roach_shape(roach):
    assert roach.nv == 38 and roach.nbody == 33
    assert abs(roach.total_mass * 1e6 - (1438.475 + 737)) < 1.0  # abdomen + thorax subtree


@pytest.mark.parametrize("name", sorted(DIGEST))
def test_roach_body_mass_and_inertia(roach, name):
    i = roach.body_names.index(name)
    mass_mg, moments = DIGEST[name]
    assert abs(roach.tree.mass[i] * 1e6 - mass_mg) <= 0.0005 + 1e-6 * mass_mg
    np.testing.assert_allclose(np.diag(roach.tree.inertia[i]), moments, rtol=2e-3)


def test_roach_distal_masses(roach):
    t = roach.tree
    distal = t.mass.copy()
    for i in range(roach.nbody - 1, -1, -1):
        if t.parent[i] >= 0:
            distal[t.parent[i]] += distal[i]
    for leg, values in DISTAL.items():
        for k, mg in enumerate(values):
            i = roach.body_names.index(f"leg_{leg}l{k}")
            assert abs(distal[i] * 1e6 - mg) <= 0.006 + 2e-3 * mg

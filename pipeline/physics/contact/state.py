"""Layout of the contact state vector `Data.cstate` (float64).

Everything a timeline command may change while simulating (ground on/off and height,
material constants, per-body sticky flags) lives here next to the non-integrated state
(sticky anchors, friction-model-2 anchors, broken attach links), so `Model` stays
immutable and the integrator's backup of `cstate` covers all of it:

    [ PARAMS (N_PARAMS) | sticky flag per body (nb) | per contact point: sticky anchor
      (x, y, z, set), friction anchor (x, y, z, set), material point (x, y, z) (11 each) |
      broken flag per attach ]

The material point is where the anchors' springs are stretched to on a round point (a
sphere or capsule end): the body-frame position of the material that touched the ground
when the step began (forces.py, `_ground`). Corners use the corner itself.

The offsets of the blocks are in `ContactArrays.layout` (see `LAYOUT_*`).
"""
# parameter slots; the YAML names (and corpus names) are in MATERIAL_FIELDS below
(GROUND_ON, GROUND_Z, K, B, KRF, ALPHA, BETA, E, MAX_DEPTH, FRICTION_MODEL, MU, SLIP_V,
 MU2, K2, E2, STICK_ALPHA, STICK_BETA, STICK_MAX, STICK_E, COLLISION_ON, COL_ALPHA,
 COL_BETA, COL_MAX, COL_E, COL_MU, REST_V) = range(26)
N_PARAMS = 26

# ContactArrays.layout entries: start of each block in cstate, and its count
LAYOUT_STICKY, LAYOUT_ANCHORS, LAYOUT_ATTACH, LAYOUT_SIZE = range(4)
ANCHOR_STRIDE = 11  # sticky (x, y, z, set) + friction-2 (x, y, z, set) + material point (x, y, z)
MATERIAL = 8  # offset of the material point in a contact point's block

# YAML field (dotted inside `material:` / `collision:`) -> (parameter slot, corpus command)
MATERIAL_FIELDS = {
    "k": (K, "groundk"),
    "b": (B, "groundb"),
    "krf": (KRF, "groundkrf"),
    "exp_alpha": (ALPHA, "groundea"),
    "exp_beta": (BETA, "groundeB"),
    "restitution": (E, "grounde"),
    "restitution_velocity": (REST_V, "none: our regularisation of grounde"),
    "max_depth": (MAX_DEPTH, "groundemaxz"),
    "friction": (MU, "groundfric"),
    "slip_velocity": (SLIP_V, "none: our regularisation of groundfric"),
    "friction2.mu": (MU2, "groundfric2"),
    "friction2.k": (K2, "groundfric2k"),
    "friction2.restitution": (E2, "groundfric2e"),
    "sticky.exp_alpha": (STICK_ALPHA, "groundstickea"),
    "sticky.exp_beta": (STICK_BETA, "groundstickeB"),
    "sticky.max_stretch": (STICK_MAX, "groundstickemaxz"),
    "sticky.restitution": (STICK_E, "groundsticke"),
}
COLLISION_FIELDS = {
    "exp_alpha": (COL_ALPHA, "collisionea"),
    "exp_beta": (COL_BETA, "collisioneB"),
    "max_depth": (COL_MAX, "collisionemaxz"),
    "restitution": (COL_E, "collisione"),
    "friction": (COL_MU, "collisionfric"),
}
FRICTION_MODELS = {"coulomb": 1.0, "spring": 2.0}

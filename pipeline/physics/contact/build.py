"""Environment dict (Scene.environment) -> ContactArrays + initial contact state.
PLACEHOLDER owned by the contact stage (issue 4); keeps the signature below stable."""
from __future__ import annotations

import numpy as np

from pipeline.physics.contact.forces import ContactArrays, empty_contact


def build_contact(scene, model) -> tuple[ContactArrays, np.ndarray]:
    """Called by pipeline.compile once the articulated Model (without contact) exists.
    Returns the contact tables and the initial non-integrated contact state `cstate0`."""
    return empty_contact(), np.zeros(0)

"""Contact forces inside the step kernel. PLACEHOLDER owned by the contact stage (issue 4):
it adds nothing until that stage lands, and keeps the signature below stable."""
from typing import NamedTuple

import numba
import numpy as np


class ContactArrays(NamedTuple):
    enabled: np.ndarray  # (1,) int64: 0 = no contact forces at all


def empty_contact() -> ContactArrays:
    return ContactArrays(enabled=np.zeros(1, np.int64))


@numba.njit(cache=True)
def contact_forces(contact, geoms, t, cstate_in, cstate_out, xpos, xrot, vbody, fext):
    """Accumulate contact forces into fext (nb, 6): world axes, [torque about the body
    origin; force]. xpos (nb,3)/xrot (nb,3,3): body frames in the world; vbody (nb,6):
    body spatial velocity [w; v] in the body frame (v = velocity of the body origin).
    Reads non-integrated contact state from cstate_in and writes the state to keep if the
    step is accepted into cstate_out (same length; copied through unchanged here)."""
    for i in range(cstate_in.shape[0]):
        cstate_out[i] = cstate_in[i]

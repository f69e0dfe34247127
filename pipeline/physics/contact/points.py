"""Points fixed in rigid bodies, for the contact kernels: world position and velocity, a
body frame's rotation, and a force at a point added to a body's wrench."""
import numba

from pipeline.nrt import njit_no_refcounts


@njit_no_refcounts
def apply_force(fext, b, xpos, px, py, pz, fx, fy, fz):
    """Add force F at world point p to body b: torque about the body origin, then force."""
    rx, ry, rz = px - xpos[b, 0], py - xpos[b, 1], pz - xpos[b, 2]
    fext[b, 0] += ry * fz - rz * fy
    fext[b, 1] += rz * fx - rx * fz
    fext[b, 2] += rx * fy - ry * fx
    fext[b, 3] += fx
    fext[b, 4] += fy
    fext[b, 5] += fz


@njit_no_refcounts
def world_point(b, r, xpos, xrot):
    """World position of the point r (body frame) of body b."""
    R = xrot[b]
    return (xpos[b, 0] + R[0, 0] * r[0] + R[0, 1] * r[1] + R[0, 2] * r[2],
            xpos[b, 1] + R[1, 0] * r[0] + R[1, 1] * r[1] + R[1, 2] * r[2],
            xpos[b, 2] + R[2, 0] * r[0] + R[2, 1] * r[1] + R[2, 2] * r[2])


@njit_no_refcounts
def rotate(R, x, y, z):
    """R (x, y, z)."""
    return (R[0, 0] * x + R[0, 1] * y + R[0, 2] * z, R[1, 0] * x + R[1, 1] * y + R[1, 2] * z,
            R[2, 0] * x + R[2, 1] * y + R[2, 2] * z)


@njit_no_refcounts
def rotate_back(R, x, y, z):
    """R^T (x, y, z)."""
    return (R[0, 0] * x + R[1, 0] * y + R[2, 0] * z, R[0, 1] * x + R[1, 1] * y + R[2, 1] * z,
            R[0, 2] * x + R[1, 2] * y + R[2, 2] * z)


@njit_no_refcounts
def point_velocity(b, px, py, pz, xpos, xrot, vbody):
    """World velocity of the material point of body b at world position p (b = -1: 0)."""
    if b < 0:
        return 0.0, 0.0, 0.0
    R = xrot[b]
    w0, w1, w2, v0, v1, v2 = vbody[b, 0], vbody[b, 1], vbody[b, 2], vbody[b, 3], vbody[b, 4], vbody[b, 5]
    wx = R[0, 0] * w0 + R[0, 1] * w1 + R[0, 2] * w2
    wy = R[1, 0] * w0 + R[1, 1] * w1 + R[1, 2] * w2
    wz = R[2, 0] * w0 + R[2, 1] * w1 + R[2, 2] * w2
    vx = R[0, 0] * v0 + R[0, 1] * v1 + R[0, 2] * v2
    vy = R[1, 0] * v0 + R[1, 1] * v1 + R[1, 2] * v2
    vz = R[2, 0] * v0 + R[2, 1] * v1 + R[2, 2] * v2
    rx, ry, rz = px - xpos[b, 0], py - xpos[b, 1], pz - xpos[b, 2]
    return vx + wy * rz - wz * ry, vy + wz * rx - wx * rz, vz + wx * ry - wy * rx

"""Making sure an off-screen OpenGL context exists before rendering, with a fix when not.

VTK's wheels choose their window at run time (X, then EGL, then OSMesa). Without a display
we ask for EGL directly so VTK does not first try X and print a warning. The probe runs in
a child process because a failing driver can abort the process instead of raising.
"""
from __future__ import annotations

import functools
import os
import re
import subprocess
import sys

from pipeline.errors import CorpusError

APT_FIX = "sudo apt-get install -y libegl1 libegl-mesa0 libgl1-mesa-dri libgbm1"

_PROBE = ("import pyvista as pv; p = pv.Plotter(off_screen=True, window_size=(8, 8)); "
          "p.add_mesh(pv.Sphere()); img = p.screenshot(return_img=True); "
          "print(p.ren_win.GetClassName(), img.shape)")


def _last_words(out) -> str:
    """VTK's last log line without colour codes and log prefix, or how the probe ended."""
    if out is None:
        return "the probe timed out"
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line).strip() for line in out.stderr.splitlines()]
    lines = [line.split("| ", 1)[-1] for line in lines if line]
    if lines:
        return lines[-1]
    return f"the probe process ended with status {out.returncode}"


def choose_backend() -> None:
    """Prefer EGL when there is no X display (must run before vtk is imported)."""
    if sys.platform.startswith("linux") and not os.environ.get("DISPLAY"):
        os.environ.setdefault("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")


@functools.cache
def require_context() -> str:
    """Name of the VTK render window class that works here, or a CorpusError saying how to
    get one."""
    choose_backend()
    try:
        out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                             timeout=120, env=os.environ.copy())
    except subprocess.TimeoutExpired:
        out = None
    if out is not None and out.returncode == 0:
        return out.stdout.split()[0]
    said = _last_words(out)
    raise CorpusError(
        "cannot render frames: no off-screen OpenGL context could be made "
        f"(VTK: {said}). Fix: install Mesa's EGL driver ({APT_FIX}); or run under a display "
        "(set DISPLAY) or choose a VTK window with VTK_DEFAULT_OPENGL_WINDOW="
        "vtkEGLRenderWindow | vtkOSOpenGLRenderWindow (the latter needs libosmesa6) and "
        "PYVISTA_OFF_SCREEN=true. Meanwhile `--no-frames` exports meshes, data and plots.")

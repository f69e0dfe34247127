"""Anti-aliasing by accumulation: the same frame drawn a few times with the projection
shifted by a fraction of a pixel, then averaged — supersampling with the samples spread
over passes instead of over a larger framebuffer. 2-D overlays do not move, so they stay
sharp. docs/export.md has the measurements that chose it for `final` on Mesa's software
rasteriser, against 4x MSAA, FXAA and rendering at twice the size.
"""
from __future__ import annotations

import numpy as np

# sub-pixel offsets (x, y) in pixels, centred on the pixel: two samples on the diagonal, so
# near-horizontal and near-vertical edges both get three coverage levels; a third pass
# costs more than `final` can spend to stay above MuJoCo's frame rate (docs/export.md)
FINAL_OFFSETS = ((-0.25, -0.25), (0.25, 0.25))


def jittered(render_window, camera, rows_up, size, offsets) -> np.ndarray:
    """The mean (H, W, 3) uint8 image of the scene drawn once per offset; `rows_up()` returns
    the window's last frame as OpenGL stores it (bottom row first), valid until the next."""
    w, h = size
    total = np.zeros((h, w, 3), np.uint16)  # up to 257 passes of 255
    for dx, dy in offsets:
        # the window centre is in normalised device units: 2 per image width or height
        camera.SetWindowCenter(2.0 * dx / w, 2.0 * dy / h)
        render_window.Render()
        total += rows_up()
    camera.SetWindowCenter(0.0, 0.0)
    n = len(offsets)
    total += n // 2
    total //= n
    return total[::-1].astype(np.uint8)

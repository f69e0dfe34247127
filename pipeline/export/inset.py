"""The gait-diagram inset of the frames, after McKenna's Animations 2-3: one row per leg,
step white, stance black, scrolling so the newest moment is at the right edge."""
from __future__ import annotations

import numpy as np

STEP_COLOUR, STANCE_COLOUR, BORDER = 255, 20, 120


class GaitInset:
    """A 2-D image actor in the top-left corner, refilled from the stepping matrix."""

    def __init__(self, plotter, legs, stepping: np.ndarray, times: np.ndarray, *,
                 window: float, width: int, height: int):
        import vtk
        from vtk.util.numpy_support import numpy_to_vtk

        self.times, self.stepping, self.window = np.asarray(times), np.asarray(stepping), window
        self.w = max(60, width // 4)
        self.row = max(3, (height // 5) // max(len(legs), 1))
        self.h = self.row * len(legs) + 2
        self.pixels = np.full((self.h, self.w, 3), BORDER, np.uint8)
        self.image = vtk.vtkImageData()
        self.image.SetDimensions(self.w, self.h, 1)
        self.vtk_pixels = numpy_to_vtk(self.pixels.reshape(-1, 3), deep=False)
        self.image.GetPointData().SetScalars(self.vtk_pixels)
        mapper = vtk.vtkImageMapper()
        mapper.SetInputData(self.image)
        mapper.SetColorWindow(255)
        mapper.SetColorLevel(127.5)
        actor = vtk.vtkActor2D()
        actor.SetMapper(mapper)
        left, bottom = 12, height - self.h - 12
        actor.SetPosition(left, bottom)
        plotter.renderer.AddViewProp(actor)
        self.actor = actor
        # leg names beside their rows (row 0, the first leg, is the top one)
        for i, leg in enumerate(legs):
            label = vtk.vtkTextActor()
            label.SetInput(str(leg).upper())
            prop = label.GetTextProperty()
            prop.SetFontSize(max(10, self.row))
            prop.SetColor(0.1, 0.1, 0.15)
            prop.SetBackgroundColor(1.0, 1.0, 1.0)
            prop.SetBackgroundOpacity(0.6)
            prop.SetVerticalJustificationToCentered()
            label.SetPosition(left + self.w + 4, bottom + self.h - 1 - (i + 0.5) * self.row)
            plotter.renderer.AddViewProp(label)

    def update(self, t: float) -> None:
        columns = t - self.window + self.window * (np.arange(self.w - 2) + 1) / (self.w - 2)
        k = np.clip(np.searchsorted(self.times, columns, side="right") - 1, 0, len(self.times) - 1)
        steps = self.stepping[k].T  # (legs, columns)
        shown = np.where(steps, STEP_COLOUR, STANCE_COLOUR).astype(np.uint8)
        shown[:, columns < self.times[0]] = BORDER
        # vtk images start at the bottom row: leg 0 (the front left leg) goes on top
        rows = np.repeat(shown[::-1], self.row, axis=0)
        self.pixels[1:-1, 1:-1] = rows[..., None]
        self.vtk_pixels.Modified()
        self.image.Modified()

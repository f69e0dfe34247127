"""Off-screen frames with pyvista/VTK: one Plotter for the whole sequence, one actor per
body whose transform changes each frame, a checker ground (flat or terrain) drawn by
pipeline/export/shaders.py, shadows (pipeline/export/shadows.py), the light rig
(pipeline/export/lights.py), springs and domes of particle models, and overlays.

`quality="final"` anti-aliases by averaging jittered passes (pipeline/export/antialias.py)
and draws soft shadows on flat floors (pipeline/export/soft_shadows.py); `"draft"` draws one
pass with planar shadows. docs/export.md has the measurements behind the choices."""
from __future__ import annotations

import numpy as np

from pipeline.export.antialias import FINAL_OFFSETS, jittered
from pipeline.export.deforming import TUBE_SIDES, tube_mesh
from pipeline.export.ground import Checker
from pipeline.export.lights import add_rig
from pipeline.export.look import AIR_LOOK, Look
from pipeline.export.meshes import Part, merged
from pipeline.export.opengl import choose_backend
from pipeline.export.shaders import add_fog, checker_floor, set_fog
from pipeline.export.shadows import onto_ground

SHADOW_SHADE = 0.62  # brightness of the ground in shadow, relative to the lit ground
SIZES_PER_TILE = 4.0  # the checker tile is about a quarter of the creature size (ground.py)
SURFACE_COLOUR = (0.62, 0.88, 0.92)  # the water surface seen from below
SURFACE_REACH = 3.0  # the surface fades over this many times the fog's distances: it
# stays brighter than the water far away, and meets it at the horizon
# Measured on Mesa's software rasteriser at 1280x720 (benchmarks/render.py --aa-table): 4x
# MSAA gave the best PSNR, but with it `final` fell below MuJoCo's frame rate; two jittered
# passes keep above it (docs/export.md). The floor's checker is filtered in its shader, so
# the passes only have the edges of bodies and shadows to resolve.
OFFSETS = {"draft": ((0.0, 0.0),), "final": FINAL_OFFSETS}


def _poly(vertices, faces, normals=None, rgba=None):
    import pyvista as pv

    cells = np.hstack([np.full((len(faces), 1), 3), faces]).ravel()
    poly = pv.PolyData(np.asarray(vertices, float), cells)
    if normals is not None:
        poly.point_data["Normals"] = np.asarray(normals, float)
        poly.point_data.active_normals_name = "Normals"
    if rgba is not None:
        poly.point_data["rgb"] = np.asarray(np.rint(np.asarray(rgba)[:, :3] * 255), np.uint8)
    return poly


def _tile_texture():
    """A one-texel texture: the checker is computed in the shader (shaders.checker_floor),
    but VTK passes texture coordinates to it only for a textured actor."""
    import pyvista as pv

    return pv.Texture(np.full((1, 1, 3), 255, np.uint8))


def _vertex_normals(vertices: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """Unit normals of a smooth surface: the area-weighted normals of the faces around each
    vertex (the bell of a jellyfish changes shape every frame)."""
    v = np.asarray(vertices, float)
    face = np.cross(v[faces[:, 1]] - v[faces[:, 0]], v[faces[:, 2]] - v[faces[:, 0]])
    n = np.zeros_like(v)
    for corner in range(3):
        np.add.at(n, faces[:, corner], face)
    return n / np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-300)


def _tcoords(points: np.ndarray, lo, tile) -> np.ndarray:
    """Planar xy texture coordinates: one texture repeat (2 x 2 tiles) per 2 tiles."""
    return (points[:, :2] - np.asarray(lo)) / (2.0 * np.asarray(tile))


class FrameRenderer:
    """Draws frames of one scene. Build once, then call `render(...)` per frame."""

    def __init__(self, parts_per_body: list[list[Part]], world_parts: list[Part],
                 checker: Checker | None, width: int, height: int, *, terrain=None,
                 shadows: bool = True, quality: str = "final", look: Look = AIR_LOOK,
                 show_time: bool = True, gait=None, gait_window: float = 1.0, deforming=(),
                 slow_motion: float = 1.0):
        choose_backend()
        import pyvista as pv

        p = pv.Plotter(off_screen=True, window_size=(int(width), int(height)), lighting=None)
        p.ren_win.SetMultiSamples(0)  # see OFFSETS
        self.offsets = OFFSETS[quality]
        p.set_background(look.background)  # a gradient costs a full-screen pass
        self.plotter, self.look = p, look
        self.checker, self.terrain = checker, terrain
        self.fogged = []  # (actor, reach) whose fog uniforms follow the camera
        # final: soft shadows where the floor is flat; else the planar ones (draft, terrain)
        self.soft = None
        if shadows and quality == "final" and checker is not None and terrain is None:
            from pipeline.export.soft_shadows import SoftShadow

            self.soft = SoftShadow(checker, SIZES_PER_TILE * checker.tile)
            self.soft_parts = [(b, part.vertices) for b, parts in enumerate(parts_per_body)
                               for part in parts]
        self._add_ground()
        if look.water_surface is not None:
            self._add_water_surface(look.water_surface)
        if world_parts:
            v, n, f, c = merged(world_parts)
            self._fog(p.add_mesh(_poly(v, f, n, c), scalars="rgb", rgb=True, ambient=0.3,
                                 diffuse=0.7, specular=0.15))
        self.actors = [self._add_body(parts) if parts else None for parts in parts_per_body]
        self.deforming = [self._add_deforming(item, width) for item in deforming]
        has_ground = checker is not None or terrain is not None
        self.shadow = self._add_shadow(parts_per_body) \
            if shadows and has_ground and self.soft is None else None
        add_rig(p, look.underwater)

        self.time_suffix = f"   ({1 / slow_motion:g} x real time)" if slow_motion != 1 else ""
        self.time_actor = p.add_text("", position=(12, 10), font_size=12,
                                     color=(0.15, 0.15, 0.2)) if show_time else None
        self.gait = None
        if gait is not None:
            from pipeline.export.inset import GaitInset

            self.gait = GaitInset(p, *gait, window=gait_window, width=int(width), height=int(height))
        p.show(auto_close=False)
        self.size = (int(width), int(height))
        import vtk

        self.pixels = vtk.vtkUnsignedCharArray()

    def _fog(self, actor):
        add_fog(actor)
        self.fogged.append((actor, 1.0))
        return actor

    def _add_water_surface(self, z: float) -> None:
        """The underside of the water surface: a bright sheet that fades later than the rest,
        so a band of it shows above the horizon of a camera looking nearly level."""
        import pyvista as pv

        lo, hi = np.asarray(self.tiles[0]), np.asarray(self.tiles[0]) + 1.0
        if self.checker is not None:
            lo, hi = np.asarray(self.checker.lo), np.asarray(self.checker.hi)
        centre, span = (lo + hi) / 2, 8.0 * (hi - lo)
        sheet = pv.Plane(center=(*centre, z), i_size=span[0], j_size=span[1])
        actor = self.plotter.add_mesh(sheet, color=SURFACE_COLOUR, lighting=False)
        add_fog(actor)
        self.fogged.append((actor, SURFACE_REACH))

    def _add_ground(self) -> None:
        checker, terrain = self.checker, self.terrain
        if checker is not None:
            import pyvista as pv

            # drawn unlit with its lit colours: under a directional key light a plane's
            # shading is uniform, and skipping the lighting on the largest surface of the
            # frame saves much of the software rasteriser's time
            floor = pv.Plane(center=((checker.lo[0] + checker.hi[0]) / 2,
                                     (checker.lo[1] + checker.hi[1]) / 2, checker.z),
                             i_size=checker.hi[0] - checker.lo[0],
                             j_size=checker.hi[1] - checker.lo[1], i_resolution=1, j_resolution=1)
            self.tiles = (checker.lo, (checker.tile, checker.tile))
            floor.active_texture_coordinates = _tcoords(floor.points, *self.tiles)
            actor = self.plotter.add_mesh(floor, texture=_tile_texture(), lighting=False)
            soft = self.soft
            checker_floor(actor, *self.look.tiles, shadow=None if soft is None else
                          (soft.texture, checker.lo, checker.tile))
            if soft is not None:
                soft.floor = actor
            self.fogged.append((actor, 1.0))
        if terrain is not None:
            # lit, so the relief reads; one checker tile per grid cell, as in the glTF
            self.tiles = (terrain.lo, (terrain.dx, terrain.dy))
            tv, tf, _ = terrain.mesh()
            mesh = _poly(tv, tf).compute_normals(cell_normals=True, point_normals=False)
            mesh.active_texture_coordinates = _tcoords(mesh.points, *self.tiles)
            actor = self.plotter.add_mesh(mesh, texture=_tile_texture(), ambient=0.45,
                                          diffuse=0.6, specular=0.0)
            checker_floor(actor, *self.look.tiles, lit=True)
            self.fogged.append((actor, 1.0))

    def _add_body(self, parts: list[Part]):
        v, n, f, c = merged(parts)
        actor = self.plotter.add_mesh(_poly(v, f, n, c), scalars="rgb", rgb=True, ambient=0.3,
                                      diffuse=0.8, specular=0.3, specular_power=24.0,
                                      opacity=float(min(c[:, 3])))
        actor.prop.interpolation = "phong"
        return self._fog(actor)

    def _add_deforming(self, item, width: int):
        """A spring set (tubes between mass pairs) or a surface; returns the polydata whose
        points each frame replaces, with the drawable."""
        first = item.vertices[0]
        colors = item.colors
        if item.faces is None:
            v, n, f = tube_mesh(first, item.radius)
            if colors is not None:
                colors = np.repeat(colors, TUBE_SIDES, axis=0)
        else:
            v, n, f = first, _vertex_normals(first, item.faces), item.faces
        poly = _poly(v.copy(), f, n)
        colour = dict(color=item.rgba[:3]) if colors is None else \
            dict(scalars=np.asarray(np.rint(colors * 255), np.uint8), rgb=True)
        actor = self.plotter.add_mesh(poly, opacity=float(item.rgba[3]), ambient=0.35, diffuse=0.7,
                                      specular=0.4, specular_power=30.0, **colour)
        actor.prop.interpolation = "phong"
        self._fog(actor)
        return poly, item

    def _add_shadow(self, parts_per_body: list[list[Part]]):
        """One mesh of every body's triangles, textured like the ground but darker."""
        owners = [(b, part) for b, parts in enumerate(parts_per_body) for part in parts]
        if not owners:
            return None
        v, _, f, _ = merged([part for _, part in owners])
        self.shadow_body = np.repeat([b for b, _ in owners], [len(part.vertices) for _, part in owners])
        self.shadow_local = np.hstack([v, np.ones((len(v), 1))])
        shadow = _poly(v, f)
        shadow.active_texture_coordinates = _tcoords(v, *self.tiles)
        actor = self.plotter.add_mesh(shadow, texture=_tile_texture(), lighting=False)
        checker_floor(actor, *self.look.tiles, shade=SHADOW_SHADE)
        self.fogged.append((actor, 1.0))
        actor.mapper.SetResolveCoincidentTopologyToPolygonOffset()
        return shadow

    def _project_shadow(self, matrices: np.ndarray) -> None:
        world = np.einsum("nij,nj->ni", matrices[self.shadow_body, :3, :], self.shadow_local)
        flat = onto_ground(world, self.checker, self.terrain)
        self.shadow.points[:] = flat
        self.shadow.active_texture_coordinates[:] = _tcoords(flat, *self.tiles)
        self.shadow.Modified()

    def render(self, matrices: np.ndarray, eye, focus, up, time: float | None = None,
               frame: int = 0) -> np.ndarray:
        """One frame (H, W, 3) uint8 for body transforms `matrices` (B, 4, 4); `frame`
        picks the vertices of the deforming drawables."""
        for actor, m in zip(self.actors, matrices):
            if actor is not None:
                actor.user_matrix = m
        casters = []
        for poly, item in self.deforming:
            v = item.vertices[frame]
            if item.faces is None:
                v, n, _ = tube_mesh(v, item.radius)
                casters += list(v.reshape(-1, 2 * TUBE_SIDES, 3))  # one convex tube per spring
            else:
                n = _vertex_normals(v, item.faces)
                casters.append(v)
            poly.points[:] = v
            poly.point_data["Normals"][:] = n
            poly.Modified()
        if self.shadow is not None:
            self._project_shadow(matrices)
        if self.soft is not None:
            self.soft.update([v @ matrices[b, :3, :3].T + matrices[b, :3, 3]
                              for b, v in self.soft_parts] + casters)
        cam = self.plotter.camera
        cam.position, cam.focal_point, cam.up = tuple(eye), tuple(focus), tuple(up)
        distance = float(np.linalg.norm(np.asarray(eye) - np.asarray(focus)))
        clip = (distance * 0.02, distance * 200.0)
        cam.clipping_range = clip
        look = self.look
        for actor, reach in self.fogged:
            set_fog(actor, look.fog, reach * look.fog_near * distance,
                    reach * look.fog_far * distance, look.fog_max, clip)
        if self.time_actor is not None and time is not None:
            self.time_actor.SetInput(f"t = {time:.3f} s{self.time_suffix}")
        if self.gait is not None and time is not None:
            self.gait.update(time)
        if len(self.offsets) == 1:
            self.plotter.ren_win.Render()
            return self.read_pixels()
        return jittered(self.plotter.ren_win, cam, self.rows_up, self.size, self.offsets)

    def rows_up(self) -> np.ndarray:
        """The window's last frame, (H, W, 3) uint8 with the bottom row first as OpenGL
        stores it; a view the next read overwrites."""
        from vtk.util.numpy_support import vtk_to_numpy

        w, h = self.size
        self.plotter.ren_win.GetPixelData(0, 0, w - 1, h - 1, 0, self.pixels, 0)
        return vtk_to_numpy(self.pixels).reshape(h, w, 3)

    def read_pixels(self) -> np.ndarray:
        """The window's last frame as (H, W, 3) uint8."""
        return self.rows_up()[::-1].copy()

    def close(self) -> None:
        self.plotter.close()

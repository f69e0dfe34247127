"""Collision detection between convex shapes (Fontijne 2000, ch. 2; issue 17).

Numba kernels over plain arrays, no Python inside a query:

  shapes.py    every body shape as a support function (`Shapes` arrays); hull.py builds
               convex hulls with polygon faces
  simplex.py   the closest point of a simplex to the origin (signed volumes)
  gjk.py       distance and closest points of the shapes' cores
  epa.py       penetration depth and normal when the cores overlap
  narrow.py    signed distance, points and normal of one placed pair (`query`)
  manifold.py  up to four contact points of an overlapping pair (`contact`)

This package imports only numeric libraries, so the physics kernels may call it.
"""

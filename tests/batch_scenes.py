"""Scenes the batch tests share."""

# weightless, the box floats at rest for as long as the job runs (dropped, rk4 at h = 1 ms
# bounces it off the ground until it runs away at t = 3 s, which a fast machine reaches
# before the batch is stopped): a job that only ends when it is stopped or times out
LONG = """\
scene: long
environment: {environment: flat, gravity: 0}
creatures:
  - creature: box
    bodies: [{name: box, shape: {box: [0.1, 0.1, 0.1]}}]
    at: [{move: [0, 0, 0.2]}]
simulation: {duration: 2000, dt: 1/100, integrator: rk4, h: 1/1000}
outputs: {frames: false, video: false, glb: false, plots: false}
"""

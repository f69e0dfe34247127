"""The spec stage: YAML (or a dict) -> validated, resolved `Scene` / `Creature` (types.py).

loader.py (safe YAML with line marks) -> schema.py (JSON Schema, located messages) ->
documents.py (includes.py, overrides, mirror/repeat in expand.py) -> resolve.py (scenes)
and bodies.py / joints.py / shapes.py (creatures, with units.py, transforms.py and the
semantic checks of checks.py) -> types.py. `pipeline.load` and `pipeline.load_scene` are the
entry point; cli_info.py is `corpus info` (`corpus validate` is pipeline/validate.py: it also loads
sweeps and evolutions, which belong to the stages above).
"""

"""The spec stage: YAML (or a dict) -> validated, resolved `Scene` / `Creature` (types.py).

loader.py (safe YAML with line marks) -> schema.py (JSON Schema, located messages) ->
documents.py (includes.py, overrides, mirror/repeat in expand.py) -> resolve.py (scenes)
and bodies.py / joints.py / shapes.py (creatures, with units.py, transforms.py and the
semantic checks of checks.py) -> types.py. `pipeline.load` and `pipeline.load_scene` are the
entry points; cli_validate.py and cli_info.py are `corpus validate` and `corpus info`.
"""

"""The spec stage: YAML (or a dict) -> validated, resolved `Scene` / `Creature` (types.py).

loader.py (safe YAML with line marks) -> schema.py (JSON Schema, located messages) ->
documents.py (includes, overrides, mirror/repeat via expand.py) -> resolve.py (units.py,
transforms.py, checks.py) -> types.py. `pipeline.load` and `pipeline.load_scene` are the
entry points; cli_validate.py and cli_info.py are `corpus validate` and `corpus info`.
"""

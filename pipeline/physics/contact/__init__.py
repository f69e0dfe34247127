"""Contact and environment forces (ground, terrain, sticky feet, attach, collisions)."""

"""GLSL added to VTK's own shaders: an anti-aliased checker floor and distance fog.

The floor's checker is computed per pixel from its texture coordinates and box-filtered
over the pixel's footprint (the integral of the checker over the footprint, in closed
form), so tile edges are smooth at every distance without a texture lookup: on Mesa's
software rasteriser this is cheaper than the nearest-texel texture it replaces and leaves
no stair-steps or far-floor shimmer for the anti-aliasing passes to clean up.

Fog mixes every surface towards one colour by its distance from the eye along the view
axis, recovered from the depth buffer value and the clipping range: the horizon fades into
the sky, and under water everything fades into the water's colour.
"""
from __future__ import annotations

# window depth -> eye distance for a perspective projection with clipping range [near, far]
_FOG = """
  float zNdc = 2.0 * gl_FragCoord.z - 1.0;
  float eyeDepth = 2.0 * clipNear * clipFar / (clipFar + clipNear - zNdc * (clipFar - clipNear));
  float fogMix = fogMax * smoothstep(fogNear, fogFar, eyeDepth);
  gl_FragData[0].rgb = mix(gl_FragData[0].rgb, fogColor, fogMix);
"""

# the floor's tcoords hold one texture repeat (2 x 2 tiles) per unit: `pt` counts tiles
_FLOOR_TILES = """
  vec2 pt = tcoordVCVSOutput.st * 2.0;
"""
# the soft shadow image covers the square [sheetLo, sheetLo + sheetSpan] of the floor
_SOFT_SHADOW = """
  vec2 suv = (floorLo + pt * floorTile - sheetLo) / sheetSpan;
  if (all(greaterThan(suv, vec2(0.0))) && all(lessThan(suv, vec2(1.0))))
    tile *= 1.0 - texture(shadowTex, suv).a;
"""
_CHECKER = """
  vec2 w = max(abs(dFdx(pt)), abs(dFdy(pt))) + 1e-4;
  vec2 box = 2.0 * (abs(fract((pt - 0.5 * w) * 0.5) - 0.5)
                    - abs(fract((pt + 0.5 * w) * 0.5) - 0.5)) / w;
  float dark = 0.5 - 0.5 * box.x * box.y;
  vec3 tile = tileShade * mix(lightTile, darkTile, dark);
"""


def add_fog(actor) -> None:
    """Fog on an actor without a checker, applied after its lighting (its colour as lit)."""
    actor.GetShaderProperty().AddFragmentShaderReplacement(
        "//VTK::Light::Impl", True, "//VTK::Light::Impl\n" + _FOG, False)
    _no_fog_yet(actor)


def checker_floor(actor, light, dark, shade: float = 1.0, lit: bool = False,
                  shadow=None) -> None:
    """Replace the actor's texture lookup by the filtered checker, `shade` times the tile
    colours, then fog (the actor must carry a texture so that VTK passes its texture
    coordinates). A `lit` actor's lit colour multiplies the tiles; an unlit one shows them.
    `shadow`: (vtkTexture whose alpha darkens the floor, floor's low corner, tile edge) —
    the soft shadows of pipeline/export/soft_shadows.py, placed by `place_sheet`."""
    paint = ("  gl_FragData[0].rgb *= tile;\n" if lit else
             "  gl_FragData[0] = vec4(tile, 1.0);\n")
    code = _FLOOR_TILES + _CHECKER
    if shadow is not None:
        texture, lo, tile = shadow
        actor.GetProperty().SetTexture("shadowTex", texture)
        code += _SOFT_SHADOW
    # VTK looks the texture up after lighting, so the fog goes here too
    actor.GetShaderProperty().AddFragmentShaderReplacement(
        "//VTK::TCoord::Impl", True, code + paint + _FOG, False)
    if shadow is not None:
        u = actor.GetShaderProperty().GetFragmentCustomUniforms()
        u.SetUniform2f("floorLo", list(map(float, lo)))
        u.SetUniformf("floorTile", float(tile))
        place_sheet(actor, (0.0, 0.0), 1.0)
    u = actor.GetShaderProperty().GetFragmentCustomUniforms()
    u.SetUniform3f("lightTile", list(map(float, light)))
    u.SetUniform3f("darkTile", list(map(float, dark)))
    u.SetUniformf("tileShade", float(shade))
    _no_fog_yet(actor)


def place_sheet(actor, lo, span: float) -> None:
    """Where the soft shadow image lies on the floor this frame: its low corner and side."""
    u = actor.GetShaderProperty().GetFragmentCustomUniforms()
    u.SetUniform2f("sheetLo", list(map(float, lo)))
    u.SetUniformf("sheetSpan", float(span))


def _no_fog_yet(actor) -> None:
    """VTK declares a custom uniform only when it has a value when the shader is built."""
    set_fog(actor, (0.0, 0.0, 0.0), 1.0, 2.0, 0.0, (0.1, 10.0))


def set_fog(actor, colour, near: float, far: float, fog_max: float, clip) -> None:
    """The fog of `add_fog` for this frame: full `fog_max` mix at distance `far` and beyond,
    none nearer than `near`; `clip` is the camera's clipping range."""
    u = actor.GetShaderProperty().GetFragmentCustomUniforms()
    u.SetUniform3f("fogColor", list(map(float, colour)))
    u.SetUniformf("fogNear", float(near))
    u.SetUniformf("fogFar", float(far))
    u.SetUniformf("fogMax", float(fog_max))
    u.SetUniformf("clipNear", float(clip[0]))
    u.SetUniformf("clipFar", float(clip[1]))

"""Scene -> Model: mass properties (`mass`), geometry codes and meshes (`geometry`),
assembly (`build`: `build_model(spec) -> Model`, `compile_model(spec) -> (Model, cstate0)`)."""
from pipeline.compiler.build import build_model, compile_model

__all__ = ["build_model", "compile_model"]

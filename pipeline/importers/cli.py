"""`corpus convert MODEL -o OUT.yaml`: another simulator's model file -> corpus YAML."""
from __future__ import annotations

import sys
from pathlib import Path


def add_parser(sub) -> None:
    from pipeline.importers import IMPORTERS

    p = sub.add_parser(
        "convert", help="convert a MuJoCo MJCF (.xml), URDF (.urdf) or corpus script to YAML",
        description="Convert a model file into corpus YAML, by its extension: "
                    + ", ".join(f"{ext} ({kind})" for ext, (kind, _) in IMPORTERS.items())
                    + ". Everything that changes the dynamics but has no corpus counterpart "
                      "is an error (listed with its line) unless --drop-unsupported.")
    p.add_argument("model", help="the file to convert")
    p.add_argument("-o", "--output", required=True, help="the YAML file to write")
    p.add_argument("--as", dest="as_kind", choices=("auto", "creature", "scene"), default="auto",
                   help="write a creature (one tree) or a scene with the creatures inline, "
                        "their actuator controllers, gravity and ground (default: creature "
                        "when the model is one tree)")
    p.add_argument("--drop-unsupported", action="store_true",
                   help="import without the elements corpus cannot represent (each reported)")
    p.set_defaults(func=main)


def main(args) -> int:
    from pipeline.errors import CorpusError, Problem
    from pipeline.importers import import_file
    from pipeline.importers.output import write

    if Path(args.output).resolve() == Path(args.model).resolve():
        raise CorpusError(Problem("-o names the model file itself, which writing the YAML would "
                                  "destroy; choose another output file", file=args.output))
    result = import_file(args.model, drop_unsupported=args.drop_unsupported)
    kind = write(result, Path(args.output), args.model, args.as_kind)
    log = getattr(result, "log", None)
    for problem in (log.unsupported if log else []):
        print(f"dropped: {problem}", file=sys.stderr)
    print(f"wrote {kind} {args.output}: {len(result.creatures)} creature(s), "
          f"{sum(len(c['bodies']) for c in result.creatures)} bodies, "
          f"{len(result.notes)} note(s) in its header")
    return 0

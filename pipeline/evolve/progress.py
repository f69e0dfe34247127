"""What a run shows while it goes: a bar over generations with the best and mean fitness,
and one line per failed evaluation (its message, no traceback)."""
from __future__ import annotations

import sys


class Progress:
    def __init__(self, name: str, first: int, last: int, quiet: bool = False):
        self.bar = None
        if not quiet and sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=last + 1, initial=first, unit="gen", desc=name, dynamic_ncols=True)
        self.quiet = quiet

    def failed(self, generation: int, index: int, message: str) -> None:
        line = f"generation {generation}, individual {index}: {message}"
        if self.bar is not None:
            self.bar.write(line, file=sys.stderr)
        else:
            print(line, file=sys.stderr)

    def generation(self, generation: int, stats: dict) -> None:
        text = f"best {stats['best']:.6g}  mean {stats['mean']:.6g}" + (
            f"  failed {stats['failed']}" if stats["failed"] else "")
        if self.bar is not None:
            self.bar.set_postfix_str(text, refresh=False)
            self.bar.update(1)
        elif not self.quiet:
            print(f"generation {generation}: {text}", file=sys.stderr)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

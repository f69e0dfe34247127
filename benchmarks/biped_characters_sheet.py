"""docs/img/biped_characters.png: six frames (0, 2, 4, 6, 8 and 10 s) of
scenes/biped_characters.yaml's video, two by three, for docs/biped.md (Characters).

    .venv/bin/corpus run scenes/biped_characters.yaml
    .venv/bin/python benchmarks/biped_characters_sheet.py outputs/biped_characters/video.mp4 docs/img/biped_characters.png
"""
import sys

import imageio.v3 as iio
from PIL import Image

video, out = sys.argv[1], sys.argv[2]
frames = iio.imread(video)
fps = iio.immeta(video)["fps"]
picks = [min(round(t * fps), len(frames) - 1) for t in (0, 2, 4, 6, 8, 10)]
tiles = [Image.fromarray(frames[i]).resize((640, 360)) for i in picks]
sheet = Image.new("RGB", (1280, 1080))
for k, tile in enumerate(tiles):
    sheet.paste(tile, ((k % 2) * 640, (k // 2) * 360))
sheet.quantize(64).save(out, optimize=True)  # a palette: 0.6 MB instead of 2
print(f"{out}: frames {picks} of {len(frames)} at {fps:g} fps")

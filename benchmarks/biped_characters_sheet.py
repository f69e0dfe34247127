"""docs/img/biped_characters.png: six evenly spaced frames of scenes/biped_characters.yaml's
video, first to last, two by three, for docs/biped.md (Characters).

    .venv/bin/corpus run scenes/biped_characters.yaml
    .venv/bin/python benchmarks/biped_characters_sheet.py outputs/biped_characters/video.mp4 docs/img/biped_characters.png
"""
import sys

import imageio.v3 as iio
from PIL import Image

video, out = sys.argv[1], sys.argv[2]
frames = iio.imread(video)
fps = iio.immeta(video)["fps"]
picks = [round(k * (len(frames) - 1) / 5) for k in range(6)]
tiles = [Image.fromarray(frames[i]).resize((640, 360)) for i in picks]
sheet = Image.new("RGB", (1280, 1080))
for k, tile in enumerate(tiles):
    sheet.paste(tile, ((k % 2) * 640, (k // 2) * 360))
sheet.quantize(256, method=Image.Quantize.FASTOCTREE).save(out, optimize=True)  # a palette: 0.8 MB, not 2
print(f"{out}: frames {picks} of {len(frames)} at {fps:g} fps: {', '.join(f'{i / fps:.2f}' for i in picks)} s")

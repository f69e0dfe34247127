"""The roach tripod scene end to end (slow: simulates): animation.glb passes the Khronos
validator with no errors or warnings, and the MP4 decodes to fps x slow_motion x duration
frames of the asked size."""
import json
import subprocess

import imageio_ffmpeg
import pytest

from pipeline.run import run_scene
from test_export_gltf import TOOLS, node_and_validator

DURATION = 0.2


@pytest.mark.slow
def test_roach_tripod_exports(tmp_path):
    options = {"glb": True, "video": "mp4", "frames": True, "fps": 30, "slow_motion": 4,
               "size": [320, 180], "plots": ["gait"]}
    result = run_scene("scenes/roach_tripod.yaml", tmp_path, export_options=options,
                       duration=DURATION, quiet=True)
    out = result.out_dir
    reader = imageio_ffmpeg.read_frames(str(out / "video.mp4"))
    meta = next(reader)
    assert meta["size"] == (320, 180) and meta["pix_fmt"].startswith("yuv420p")
    assert sum(1 for _ in reader) == round(30 * 4 * DURATION)
    assert len(list((out / "frames").glob("*.png"))) == round(30 * 4 * DURATION)
    assert (out / "plots" / "gait.png").is_file()
    node = node_and_validator()
    if node is not None:
        report = json.loads(subprocess.run([node, str(TOOLS / "validate_gltf.js"),
                                            str(out / "animation.glb")], capture_output=True,
                                           text=True, timeout=120).stdout)
        assert report["issues"]["numErrors"] == 0, report["issues"]["messages"]
        assert report["issues"]["numWarnings"] == 0, report["issues"]["messages"]

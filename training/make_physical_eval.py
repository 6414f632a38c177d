"""Render photos of a physical board with standing pieces, with known FENs, for
measuring only (`boardscan eval OUT_DIR/labels.csv`).

The scene is POV-Ray's own chess example (`advanced/chess2.pov` of Debian's
povray-examples: turned pieces, a marble board in a wooden frame, a table), with
its pieces replaced by a position from random legal play and its camera moved
above White's side of the board: elevation 45-85°, swung up to 30° either way;
the rendered picture is then turned by up to 25°, as a hand-held camera rolls. Needs Debian's povray and
povray-examples (not CI); about 6 s of CPU a picture at 640x480.

Usage: python3 training/make_physical_eval.py OUT_DIR [--count 20] [--seed 1]
"""

import argparse
import math
import re
import subprocess
from pathlib import Path

import chess
import numpy as np
from PIL import Image

from make_testdata import random_game_positions, write_csv

SCENE = Path("/usr/share/doc/povray/examples/advanced/chess2.pov")
INCLUDE = Path("/usr/share/povray-3.7/include")
SQUARE = 8  # scene units a square; a1 at x = -28, z = -28
PIECES = dict(P="WPawn", N="WKnight", B="WBishop", R="WRook", Q="WQueen", K="WKing",
              p="BPawn", n="BKnight", b="BBishop", r="BRook", q="BQueen", k="BKing")


def pieces_union(board):
    """The scene's pieces for a board FEN, one object a piece."""
    objects = []
    for square, piece in chess.BaseBoard(board).piece_map().items():
        x = -28 + SQUARE * chess.square_file(square)
        z = -28 + SQUARE * chess.square_rank(square)
        objects.append(f"   object {{ {PIECES[piece.symbol()]} translate <{x}, 0, {z}> }}")
    return "union {\n" + "\n".join(objects) + "\n}"


def camera(rng):
    """A camera above White's side, looking at the board's centre, and the roll its
    picture is turned by afterwards."""
    elevation = math.radians(rng.uniform(45, 85))
    swing = math.radians(rng.uniform(-30, 30))
    distance = rng.uniform(150, 180)
    x = distance * math.cos(elevation) * math.sin(swing)
    y = distance * math.sin(elevation)
    z = -distance * math.cos(elevation) * math.cos(swing)
    roll = rng.uniform(-25, 25)
    return (f"camera {{\n   location <{x:.2f}, {y:.2f}, {z:.2f}>\n   direction <0, 0, 2>\n"
            f"   up <0, 1, 0>\n   right x*image_width/image_height\n   look_at <0, 0, 0>\n}}\n"), roll


def scene(example, board, rng):
    """The example scene's text with this position and a random camera, and the roll."""
    cam, roll = camera(rng)
    # The example's camera block, with its focal blur, runs from `camera {` to the end
    # of its focal-blur switch; the new camera has none.
    text = re.sub(r"camera \{.*?#end\s*\}\s*\n", lambda _: cam, example, count=1, flags=re.S)
    text = text.replace("object { Pieces }", f"object {{ {pieces_union(board)} }}")
    return text, roll


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if not SCENE.exists():
        ap.error(f"{SCENE} not found: install Debian's povray and povray-examples")
    example = SCENE.read_text()
    a.out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(a.seed)
    rows = []
    for i, board in enumerate(random_game_positions(a.count, rng)):
        text, roll = scene(example, board, rng)
        pov = a.out / f"{i:03}.pov"
        pov.write_text(text)
        png = a.out / f"{i:03}.png"
        subprocess.run(["povray", f"+I{pov}", f"+O{png}", "+W640", "+H480", "-D", "+A0.3",
                        f"+L{INCLUDE}", "-GA"], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        Image.open(png).convert("RGB").rotate(roll, Image.BICUBIC, fillcolor=(60, 60, 60)).save(png)
        pov.unlink()
        rows.append((png.name, board, "white", "physical_render"))
        print(f"{png.name} {board}", flush=True)
    write_csv(a.out / "labels.csv", ["file", "fen", "view", "kind"], rows)


if __name__ == "__main__":
    main()

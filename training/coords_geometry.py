"""Where board coordinates are looked for, shared by the data generator and
mirrored exactly in `src/recognize/coordinates.rs`.

Positions are in board units: the board spans 0..8 in x (u) and y (v), one
unit per square, v downwards. A *site* is one row or column of eight places
that may hold the rank digits or the file letters; each place is read as a
PATCH x PATCH greyscale patch sampled bilinearly over its rectangle.
"""

import numpy as np
from scipy import ndimage

PATCH = 24
GLYPHS = ["none"] + list("12345678") + list("abcdefgh")
INSIDE = 0.45  # side of a corner patch inside a square
OUTSIDE = 0.8  # depth of a patch outside the board

# (kind, where, corner) in the Rust file's order: kind is "rank" or "file";
# where is an inside line ("col0", "col7", "row7", "row0") or an outside strip
# ("left", "right", "bottom", "top"); corner is the square corner for inside sites.
SITES = [
    ("rank", "col0", "tl"), ("rank", "col0", "bl"), ("rank", "col7", "tr"), ("rank", "col7", "br"),
    ("rank", "left", None), ("rank", "right", None),
    ("file", "row7", "bl"), ("file", "row7", "br"), ("file", "row0", "tl"), ("file", "row0", "tr"),
    ("file", "bottom", None), ("file", "top", None),
]


def patch_rect(site, i):
    """(u0, v0, u1, v1) of place i (picture row or column i) of a site."""
    kind, where, corner = site
    if where in ("left", "right"):
        u0 = -OUTSIDE if where == "left" else 8.0
        return (u0, i + 0.1, u0 + OUTSIDE, i + 0.9)
    if where in ("bottom", "top"):
        v0 = 8.0 if where == "bottom" else -OUTSIDE
        return (i + 0.1, v0, i + 0.9, v0 + OUTSIDE)
    row, col = (i, 0 if where == "col0" else 7) if kind == "rank" else (7 if where == "row7" else 0, i)
    u0 = col + (0.0 if corner[1] == "l" else 1.0 - INSIDE)
    v0 = row + (0.0 if corner[0] == "t" else 1.0 - INSIDE)
    return (u0, v0, u0 + INSIDE, v0 + INSIDE)


def sample_patch(grey, origin, cell, rect):
    """Bilinear PATCH x PATCH samples of a greyscale array over a rectangle in
    board units (board's top-left at `origin` pixels, `cell` pixels a unit),
    standardised as the Rust side does."""
    u0, v0, u1, v1 = rect
    t = (np.arange(PATCH) + 0.5) / PATCH
    xs = origin[0] + (u0 + (u1 - u0) * t) * cell - 0.5
    ys = origin[1] + (v0 + (v1 - v0) * t) * cell - 0.5
    yy, xx = np.meshgrid(ys, xs, indexing="ij")
    values = ndimage.map_coordinates(grey, [yy, xx], order=1, mode="nearest")
    return standardise(values)


def standardise(values):
    """Zero mean, unit spread (at least 10 grey levels), so contrast and polarity
    of the ink do not matter beyond its sign."""
    values = values.astype(np.float32)
    return (values - values.mean()) / max(float(values.std()), 10.0)

"""Real printed book diagrams: what old and cheap books do that `render.py`'s boards do not.

`print_real_book` draws a board as a book prints it, in ink on paper at print
resolution, then scans or photographs it small:

- dark squares as diagonal or straight hatching at several angles, spacings and line
  weights, crosshatching, a halftone raster of round or square dots at several pitches,
  dot sizes and screen angles (as Soviet-era books print them), a stipple of random
  dots, or a flat grey, now and then screened as a whole page (a halftone print
  artefact over everything);
- pieces straight on the raster, with a white halo, or on a white box;
- book marks on the squares: dotted and dashed move paths, small crosses, rings and
  dots, thin arrows (the label stays the square's real content);
- a frame (single or double) with any sides missing, or none; coordinates in the margin;
- thin or thick ink (eroded or dilated strokes), worn and mottled ink;
- white, cream, sepia or grey paper; show-through; scanner blur, noise, bilevel
  thresholding, JPEG.

Every random choice comes from the generator passed in, so a board's recipe is
reproducible from its seed.
"""

import io

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from render import grid_edges, parse_fen, scaled_piece, square_to_rc, ui_font


def _coords(h, w):
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    return xx, yy


def lines_field(h, w, angle, spacing, width, phase):
    """Parallel lines (ink 0-1) at `angle` degrees, `spacing` px apart, `width` px wide."""
    xx, yy = _coords(h, w)
    t = np.deg2rad(angle)
    u = (xx * np.cos(t) + yy * np.sin(t)) / spacing + phase
    d = np.abs(u - np.round(u)) * spacing
    return np.clip(width / 2 - d + 0.5, 0, 1)


def dots_field(h, w, angle, pitch, coverage, square, phase, wobble):
    """A halftone screen of dots (ink 0-1): `pitch` px apart on a grid turned by `angle`
    degrees, covering `coverage` of the area; round or square dots. `wobble` (an array
    or 1.0) scales each dot's size (uneven printing)."""
    xx, yy = _coords(h, w)
    t = np.deg2rad(angle)
    u = (xx * np.cos(t) + yy * np.sin(t)) / pitch + phase[0]
    v = (-xx * np.sin(t) + yy * np.cos(t)) / pitch + phase[1]
    fu, fv = u - np.round(u), v - np.round(v)
    if coverage > 0.6:  # a dark screen: white holes in ink
        inner = 1 - coverage
        flip = True
    else:
        inner, flip = coverage, False
    if square:
        d = np.maximum(np.abs(fu), np.abs(fv)) * pitch
        r = pitch * np.sqrt(inner) / 2 * wobble
    else:
        d = np.hypot(fu, fv) * pitch
        r = pitch * np.sqrt(inner / np.pi) * wobble
    ink = np.clip(r - d + 0.5, 0, 1)
    return 1 - ink if flip else ink


def screen_threshold(h, w, angle, pitch, phase):
    """A halftone screen's threshold (0-1) per pixel: a grey of tone g prints as ink
    where g exceeds it (round dots growing from the cell centres)."""
    xx, yy = _coords(h, w)
    t = np.deg2rad(angle)
    u = (xx * np.cos(t) + yy * np.sin(t)) / pitch + phase[0]
    v = (-xx * np.sin(t) + yy * np.cos(t)) / pitch + phase[1]
    d = np.hypot(u - np.round(u), v - np.round(v))
    return np.clip(np.pi * d * d, 0, 1)  # area of the dot that reaches this pixel


def smooth_noise(h, w, step, rng):
    coarse = rng.normal(0, 1, (h // step + 2, w // step + 2)).astype(np.float32)
    return np.asarray(Image.fromarray(coarse).resize((w, h), Image.BICUBIC))


def dark_pattern(h, w, cell, rng):
    """The ink of the dark squares' pattern over the whole canvas (continuous across
    squares, as a printing plate is)."""
    kind = rng.choice(["hatch", "crosshatch", "dots", "grey", "stipple"], p=[0.36, 0.08, 0.36, 0.14, 0.06])
    if kind in ("hatch", "crosshatch"):
        angle = float(rng.choice([45, 135, 45, 135, 30, 60, 120, 150, 0, 90, rng.uniform(0, 180)]))
        spacing = cell / rng.uniform(5, 12)
        width = min(spacing * 0.7, rng.uniform(0.8, 2.6) * cell / 55)
        ink = lines_field(h, w, angle, spacing, width, rng.random())
        if kind == "crosshatch":
            ink = np.maximum(ink, lines_field(h, w, angle + rng.choice([90, 60, -60]), spacing, width, rng.random()))
        return ink, kind
    if kind == "dots":
        pitch = cell / rng.uniform(5, 12)
        angle = float(rng.choice([0, 45, 15, 75, rng.uniform(0, 90)]))
        wobble = 1.0
        if rng.random() < 0.5:
            wobble = 1 + rng.uniform(0.05, 0.25) * smooth_noise(h, w, max(2, int(pitch)), rng)
        return dots_field(h, w, angle, pitch, rng.uniform(0.18, 0.75), rng.random() < 0.3,
                          rng.random(2), wobble), kind
    if kind == "stipple":
        density = rng.uniform(0.15, 0.5)
        grain = np.asarray(Image.fromarray(((rng.random((h, w)) < density) * 255).astype(np.uint8))
                           .filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.0))), dtype=np.float32) / 255.0
        return np.clip(grain * 1.6, 0, 1), kind
    return np.full((h, w), rng.uniform(0.15, 0.45), np.float32), kind


def piece_ink(set_name, piece, px):
    """A piece at px x px as (ink 0-1, cover 0-1): cover is where it hides the square."""
    im = scaled_piece(set_name, piece, px, False)
    a = np.asarray(im.getchannel("A"), dtype=np.float32) / 255.0
    luma = np.asarray(im.convert("L"), dtype=np.float32) / 255.0
    return (1 - luma) * a, a


def square_centre(square, view, e):
    r, c = square_to_rc(square, view)
    return (e[c] + e[c + 1]) / 2, (e[r] + e[r + 1]) / 2


def random_square(rng):
    return chr(97 + int(rng.integers(8))) + str(int(rng.integers(1, 9)))


def draw_marks(draw, e, view, cell, rng, empty):
    """Book marks on the board: dotted or dashed move paths, crosses, rings, dots, thin
    arrows. `empty` lists the empty squares (crosses and dots go on them mostly)."""
    ink = 255
    for _ in range(int(rng.integers(1, 5))):
        kind = rng.choice(["path", "cross", "ring", "dot", "arrow"], p=[0.35, 0.25, 0.12, 0.13, 0.15])
        on = empty[int(rng.integers(len(empty)))] if empty and rng.random() < 0.85 else random_square(rng)
        x, y = square_centre(on, view, e)
        x += rng.uniform(-0.2, 0.2) * cell
        y += rng.uniform(-0.2, 0.2) * cell
        stroke = max(1, round(cell * rng.uniform(0.025, 0.07)))
        if kind == "cross":
            s = cell * rng.uniform(0.08, 0.2)
            if rng.random() < 0.6:  # +
                draw.line([(x - s, y), (x + s, y)], fill=ink, width=stroke)
                draw.line([(x, y - s), (x, y + s)], fill=ink, width=stroke)
            else:  # x
                draw.line([(x - s, y - s), (x + s, y + s)], fill=ink, width=stroke)
                draw.line([(x - s, y + s), (x + s, y - s)], fill=ink, width=stroke)
        elif kind == "ring":
            s = cell * rng.uniform(0.1, 0.42)
            draw.ellipse((x - s, y - s, x + s, y + s), outline=ink, width=stroke)
        elif kind == "dot":
            s = cell * rng.uniform(0.04, 0.12)
            draw.ellipse((x - s, y - s, x + s, y + s), fill=ink)
        else:  # a move path or an arrow from another square to this one
            x0, y0 = square_centre(random_square(rng), view, e)
            if (x0 - x) ** 2 + (y0 - y) ** 2 < (cell * 0.8) ** 2:
                continue
            points = [(x0, y0), (x, y)]
            if kind == "path" and rng.random() < 0.3:  # a knight's bend
                points = [(x0, y0), (x0, y), (x, y)] if rng.random() < 0.5 else [(x0, y0), (x, y0), (x, y)]
            if kind == "path":
                dot = max(1.0, cell * rng.uniform(0.02, 0.05))
                gap = cell * rng.uniform(0.08, 0.22)
                dash = cell * rng.uniform(0.0, 0.12) if rng.random() < 0.4 else 0.0
                for (ax, ay), (bx, by) in zip(points, points[1:]):
                    n = max(1, int(np.hypot(bx - ax, by - ay) / gap))
                    for i in range(n):
                        px, py = ax + (bx - ax) * i / n, ay + (by - ay) * i / n
                        if dash:
                            ux, uy = (bx - ax) / n, (by - ay) / n
                            f = dash / max(1e-6, np.hypot(ux, uy))
                            draw.line([(px, py), (px + ux * f, py + uy * f)], fill=ink, width=stroke)
                        else:
                            draw.ellipse((px - dot, py - dot, px + dot, py + dot), fill=ink)
                end = rng.random()
                if end < 0.4:  # a small cross where the path ends
                    s = cell * rng.uniform(0.08, 0.16)
                    draw.line([(x - s, y), (x + s, y)], fill=ink, width=stroke)
                    draw.line([(x, y - s), (x, y + s)], fill=ink, width=stroke)
                    continue
                if end < 0.7:
                    continue
            else:
                draw.line(points, fill=ink, width=stroke)
            (ax, ay), (bx, by) = points[-2], points[-1]
            ang = np.arctan2(by - ay, bx - ax)
            head = cell * rng.uniform(0.12, 0.25)
            for side in (-0.45, 0.45):
                draw.line([(bx, by), (bx - head * np.cos(ang + side), by - head * np.sin(ang + side))],
                          fill=ink, width=stroke)


def paper_and_ink(rng):
    """Paper and ink colours: white, cream, sepia or grey paper; black, brown or grey ink."""
    kind = rng.choice(["white", "cream", "sepia", "grey"], p=[0.35, 0.25, 0.2, 0.2])
    if kind == "white":
        paper = np.full(3, rng.uniform(235, 255))
    elif kind == "cream":
        base = rng.uniform(225, 252)
        paper = np.array([base, base * rng.uniform(0.93, 0.98), base * rng.uniform(0.8, 0.92)])
    elif kind == "sepia":
        paper = np.array([rng.uniform(225, 255), rng.uniform(175, 225), rng.uniform(110, 190)])
    else:
        paper = np.full(3, rng.uniform(170, 225)) * rng.uniform(0.97, 1.03, 3)
    level = rng.uniform(0, 75)
    ink = np.full(3, level)
    if kind == "sepia" or rng.random() < 0.15:
        ink = ink * np.array([1.0, 0.8, 0.6]) + np.array([25, 12, 0])
    return paper, ink


def jpeg(img, quality):
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=quality)
    return Image.open(io.BytesIO(buf.getvalue())).convert("RGB")


def print_real_book(fen, set_name, view, rng):
    """Draw the position as a real book prints it and scan it; returns (RGB canvas,
    grid x, grid y, board side) in the canvas's pixels."""
    size = int(rng.integers(320, 641))  # at print resolution
    cell = size / 8
    m = int(round(cell))  # the margin round the board
    h = w = size + 2 * m
    e = grid_edges(size)
    ink = np.zeros((h, w), np.float32)

    # Dark squares.
    pattern, kind = dark_pattern(h, w, cell, rng)
    dark = np.zeros((h, w), np.float32)
    for r in range(8):
        for c in range(8):
            if (r + c) % 2 == 1:
                dark[m + e[r]:m + e[r + 1], m + e[c]:m + e[c + 1]] = 1
    if rng.random() < 0.15:  # a thin outline round each dark square
        edge = np.asarray(Image.fromarray((dark * 255).astype(np.uint8)).filter(ImageFilter.FIND_EDGES)) > 0
        ink = np.maximum(ink, edge.astype(np.float32) * (dark > 0))
    ink = np.maximum(ink, pattern * dark)

    # Pieces: straight on the raster, with a white halo, or on a white box.
    halo = rng.choice(["none", "halo", "box"], p=[0.45, 0.45, 0.1])
    grow = int(rng.integers(1, max(2, int(cell / 12))))
    scale = rng.uniform(0.8, 1.0)
    for r, row in enumerate(parse_fen(fen)):
        for c, piece in enumerate(row):
            if not piece:
                continue
            rr, cc = (r, c) if view == "white" else (7 - r, 7 - c)
            cw = e[cc + 1] - e[cc]
            px = max(4, round(cw * scale))
            pink, cover = piece_ink(set_name, piece, px)
            if halo == "halo":
                cover = np.asarray(Image.fromarray((cover * 255).astype(np.uint8))
                                   .filter(ImageFilter.MaxFilter(2 * grow + 1)), dtype=np.float32) / 255.0
            elif halo == "box":
                ys, xs = np.nonzero(cover > 0.3)
                box = np.zeros_like(cover)
                if len(ys):
                    box[max(0, ys.min() - grow):ys.max() + grow + 1, max(0, xs.min() - grow):xs.max() + grow + 1] = 1
                cover = np.maximum(cover, box)
            y0 = m + e[rr] + (cw - px) // 2
            x0 = m + e[cc] + (cw - px) // 2
            region = ink[y0:y0 + px, x0:x0 + px]
            region[:] = region * (1 - cover) + pink

    # Book marks on the squares (they never change a square's label).
    if rng.random() < 0.45:
        layer = Image.new("L", (size, size), 0)
        rows = parse_fen(fen)
        empty = [chr(97 + f) + str(8 - rk) for rk in range(8) for f in range(8) if not rows[rk][f]]
        draw_marks(ImageDraw.Draw(layer), e, view, cell, rng, empty)
        marks = np.asarray(layer, dtype=np.float32) / 255.0
        sub = ink[m:m + size, m:m + size]
        sub[:] = np.maximum(sub, marks)

    # A frame, single or double, with sides missing; coordinates in the margin.
    if rng.random() < 0.75:
        img = Image.fromarray((ink * 255).astype(np.uint8))
        d = ImageDraw.Draw(img)
        gap = int(rng.integers(0, 7))
        width = int(rng.integers(1, 7))
        sides = [rng.random() > 0.2 for _ in range(4)] if rng.random() < 0.45 else [True] * 4
        lines = [(gap, width)]
        if rng.random() < 0.25:  # a double frame: a thin line inside, a thick one outside
            lines = [(gap, int(rng.integers(1, 3))), (gap + int(rng.integers(3, 8)), width)]
        for g, wd in lines:
            lo, hi = m - g - wd, m + size + g
            if lo < 0:
                continue
            boxes = [(lo, lo, hi + wd - 1, lo + wd - 1), (hi, lo, hi + wd - 1, hi + wd - 1),
                     (lo, hi, hi + wd - 1, hi + wd - 1), (lo, lo, lo + wd - 1, hi + wd - 1)]  # top right bottom left
            for keep, b in zip(sides, boxes):
                if keep:
                    d.rectangle(b, fill=255)
        if rng.random() < 0.2:
            font = ui_font(max(6, round(cell * rng.uniform(0.22, 0.35))))
            files = "abcdefgh" if view == "white" else "hgfedcba"
            ranks = "87654321" if view == "white" else "12345678"
            for i in range(8):
                d.text((m + (e[i] + e[i + 1]) / 2, m + size + gap + width + 2), files[i], font=font, fill=255,
                       anchor="mt")
                d.text((m - gap - width - 3, m + (e[i] + e[i + 1]) / 2), ranks[i], font=font, fill=255, anchor="rm")
        ink = np.asarray(img, dtype=np.float32) / 255.0

    # Ink weight: thick (spread) or thin (starved) strokes.
    weight = rng.random()
    if weight < 0.25 or weight >= 0.5 and weight < 0.75:
        k = 3 if cell < 60 or rng.random() < 0.6 else 5
        im = Image.fromarray((ink * 255).astype(np.uint8))
        im = im.filter(ImageFilter.MaxFilter(k) if weight < 0.25 else ImageFilter.MinFilter(k))
        ink = ink + (np.asarray(im, dtype=np.float32) / 255.0 - ink) * rng.uniform(0.5, 1.0)
    # A whole page screened as halftone (greys print as dots).
    if kind == "grey" and rng.random() < 0.6 or rng.random() < 0.08:
        pitch = cell / rng.uniform(5, 12)
        thr = screen_threshold(h, w, float(rng.choice([45, 15, 75, 0])), pitch, rng.random(2))
        ink = np.clip((ink - thr) * 6 + 0.5, 0, 1)
    # Worn, mottled ink.
    if rng.random() < 0.4:
        ink = ink * np.clip(1 - rng.uniform(0.1, 0.35) * np.abs(smooth_noise(h, w, max(2, int(cell / 6)), rng)), 0, 1)
    ink = ink * rng.uniform(0.8, 1.0)

    # Onto paper; show-through; a soft print.
    paper, ink_rgb = paper_and_ink(rng)
    grain = 1 + rng.uniform(0, 0.04) * smooth_noise(h, w, max(2, int(cell / 4)), rng)
    rgb = (paper * grain[..., None]) * (1 - ink[..., None]) + ink_rgb * ink[..., None]
    if rng.random() < 0.25:
        back = Image.fromarray((ink * 255).astype(np.uint8)).transpose(Image.FLIP_LEFT_RIGHT)
        back = back.rotate(0, translate=(int(rng.integers(-w // 2, w // 2)), int(rng.integers(-h // 2, h // 2))))
        back = np.asarray(back.filter(ImageFilter.GaussianBlur(rng.uniform(1, 4))), dtype=np.float32) / 255.0
        rgb = rgb * (1 - rng.uniform(0.05, 0.2) * back[..., None])
    img = Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8))
    if rng.random() < 0.5:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.2) * cell / 50))

    # Scanned or photographed small.
    target = rng.uniform(150, 560)
    f = target / size
    small = (max(16, round(w * f)), max(16, round(h * f)))
    img = img.resize(small, Image.BOX if rng.random() < 0.6 else Image.BILINEAR)
    if rng.random() < 0.5:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.2, 1.1)))
    a = np.asarray(img, dtype=np.float32)
    if rng.random() < 0.3:  # uneven light
        hh, ww = a.shape[:2]
        gy, gx = np.mgrid[0:hh, 0:ww] / np.array([hh, ww])[:, None, None]
        a = a * (1 + rng.uniform(-0.2, 0.2) * (gx - 0.5) + rng.uniform(-0.2, 0.2) * (gy - 0.5))[..., None]
    a = a + rng.normal(0, rng.uniform(1, 8), a.shape[:2])[..., None]
    if rng.random() < 0.1:  # a bilevel scan
        grey = a.mean(axis=2)
        a = np.repeat(np.where(grey > rng.uniform(0.45, 0.7) * grey.max(), 255.0, 0.0)[..., None], 3, axis=2)
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    if rng.random() < 0.3:
        img = img.convert("L").convert("RGB")
    if rng.random() < 0.3:
        img = img.filter(ImageFilter.UnsharpMask(radius=rng.uniform(1, 2), percent=int(rng.integers(50, 150))))
    if rng.random() < 0.75:
        img = jpeg(img, int(rng.integers(25, 92)))
    fx = img.width / w
    return img, m * fx, m * fx, size * fx

"""Chess board renderer used for training data and for the project's test fixtures.

`render_board` draws a board (exactly `size` x `size` pixels, the 8x8 grid filling
it) from a FEN board part with a given piece set and theme, optionally flipped,
with coordinates inside the edge squares, last-move and check highlights, arrows
and circles. `embed_in_page` places a board in a larger page-like canvas with
text blocks and buttons around it.
"""

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

ROOT = Path(__file__).resolve().parent
SETS_DIR = ROOT / ".cache" / "sets"
FONT_DIR = ROOT / ".cache" / "x" / "usr/share/fonts/truetype/dejavu"
# A restyled piece keeps at least this share of its body in its own colour (the
# lightest white and darkest black designs in the sets sit near 0.25-0.3; Leipzig's
# white king, the darkest white piece of the held-out sets, at 0.42).
MIN_OWN_COLOUR = 0.35
CLASSES = ["empty", "P", "N", "B", "R", "Q", "K", "p", "n", "b", "r", "q", "k"]


@dataclass(frozen=True)
class Theme:
    """Square colours; `hatch` draws diagonal lines on dark squares (book diagrams)."""
    name: str
    light: tuple
    dark: tuple
    hatch: bool = False


THEMES = [
    Theme("lichess-brown", (240, 217, 181), (181, 136, 99)),
    Theme("chesscom-green", (235, 236, 208), (115, 149, 82)),
    Theme("lichess-blue", (222, 227, 230), (140, 162, 173)),
    Theme("blue2", (234, 233, 210), (75, 115, 153)),
    Theme("grey", (220, 220, 220), (171, 171, 171)),
    Theme("slate", (200, 200, 200), (110, 110, 110)),
    Theme("green-plain", (255, 255, 221), (134, 166, 102)),
    Theme("purple", (239, 239, 239), (136, 119, 183)),
    Theme("coral", (177, 228, 185), (112, 162, 163)),
    Theme("wood", (232, 205, 162), (160, 110, 70)),
    Theme("olive", (238, 238, 210), (118, 150, 86)),
    Theme("tan", (238, 216, 192), (171, 122, 101)),
    Theme("pink", (245, 222, 222), (200, 130, 140)),
    Theme("book-grey", (255, 255, 255), (190, 190, 190)),
    Theme("book-white", (250, 250, 245), (215, 215, 210)),
    Theme("pale-blue", (236, 242, 248), (196, 212, 228)),
    Theme("dark", (120, 120, 120), (70, 70, 70)),
    Theme("hatched", (255, 255, 255), (255, 255, 255), hatch=True),
    Theme("hatched-cream", (248, 244, 232), (248, 244, 232), hatch=True),
]
THEME_BY_NAME = {t.name: t for t in THEMES}


@dataclass
class Decor:
    """Optional decorations drawn on a board. Squares are algebraic names like 'e4'."""
    coords: bool = False
    last_move: tuple = ()
    highlight: tuple = (255, 255, 51, 105)
    check: str = ""
    arrows: list = field(default_factory=list)  # (from, to, rgba)
    circles: list = field(default_factory=list)  # (square, rgba)
    piece_scale: float = 0.9
    halo: bool = False  # white margin around pieces (diagram fonts on hatched squares)
    # Piece colours of other themes: white pieces multiplied by `white_tint` (cream, gold,
    # blue...); black pieces blended towards `black_lift` = (colour, weight) (grey, brown).
    white_tint: tuple = (1.0, 1.0, 1.0)
    black_lift: tuple = ((0, 0, 0), 0.0)
    # Other drawing styles of the same shapes (see `restyle`): `stroke` thickens the dark
    # lines of white pieces and the light lines of black pieces; `inlay` draws light
    # lines into black bodies and a dark band into white bodies.
    stroke: int = 0
    inlay: tuple = ()
    # A mouse pointer left in a screenshot: (square, size in cells, x and y offset in cells).
    pointer: tuple = ()
    # Square texture (see `square_texture`): (kind, strength, grain period in cells, seed).
    texture: tuple = ()
    # Legal-move hints of a selected piece: (squares, rgba, radius in cells). A dot on an
    # empty square, a ring round an occupied one.
    move_hints: tuple = ()


def set_index():
    return json.loads((SETS_DIR / "index.json").read_text())


@lru_cache(maxsize=None)
def piece_image(set_name, piece):
    path = SETS_DIR / set_name / f"{piece}{'w' if piece.isupper() else 'b'}.png"
    return Image.open(path).convert("RGBA")


@lru_cache(maxsize=64)
def scaled_piece(set_name, piece, px, halo, white_tint=(1.0, 1.0, 1.0), black_lift=((0, 0, 0), 0.0),
                 stroke=0, inlay=()):
    im = restyle(piece_image(set_name, piece), piece.isupper(), stroke, inlay)
    im = recolour(im, piece.isupper(), white_tint, black_lift)
    im = im.resize((px, px), Image.LANCZOS)
    if halo:
        a = im.getchannel("A").point(lambda v: 255 if v > 40 else 0)
        grow = max(3, (px // 18) | 1)
        ring = a.filter(ImageFilter.MaxFilter(grow))
        base = Image.new("RGBA", (px, px), (255, 255, 255, 0))
        base.putalpha(ring)
        base.alpha_composite(im)
        im = base
    return im


def restyle(im, white, stroke, inlay):
    """The piece drawn in another hand: heavier contrasting lines, or inlaid patterns.

    Books and sites draw the same shapes with very different amounts of ink: white
    pieces with thick dark details, black pieces with light inner lines or brickwork.
    The piece's colour must then be read from its body, not from how much ink it has.
    Everything stays inside the piece's silhouette, so its outline is unchanged.
    """
    if not stroke and not inlay:
        return im
    alpha = im.getchannel("A")
    body = Image.new("RGB", im.size, (255, 255, 255) if white else (0, 0, 0))
    body.paste(im.convert("RGB"), mask=alpha)
    if stroke:  # grow the contrasting lines: dark ones on white pieces, light ones on black
        size = 2 * stroke + 1
        body = body.filter(ImageFilter.MinFilter(size) if white else ImageFilter.MaxFilter(size))
    if inlay:
        kind, spacing, width, lo, hi = inlay
        luma = np.asarray(body.convert("L"))
        # The piece's own colour, away from its outline: where the inlay may go.
        own = Image.fromarray(((luma > 128) if white else (luma < 128)).astype(np.uint8) * 255)
        own = np.asarray(own.filter(ImageFilter.MinFilter(2 * width + 3))) > 0
        pattern = np.zeros(luma.shape, bool)
        yy, xx = np.mgrid[0:luma.shape[0], 0:luma.shape[1]]
        if white:  # a dark band across the body, as on crowns and bases
            n = luma.shape[0]
            pattern = (yy >= lo * n) & (yy < hi * n)
        elif kind == "rows":
            pattern = yy % spacing < width
        elif kind == "bricks":
            pattern = (yy % spacing < width) | (((xx + (yy // spacing) % 2 * spacing // 2) % spacing) < width)
        else:  # "diagonal"
            pattern = (xx + yy) % spacing < width
        rgb = np.asarray(body).copy()
        rgb[own & pattern] = (0, 0, 0) if white else (255, 255, 255)
        body = Image.fromarray(rgb)
    inside = np.asarray(alpha) > 128
    luma = np.asarray(body.convert("L"))
    if ((luma > 128) if white else (luma < 128))[inside].mean() < MIN_OWN_COLOUR:
        return im  # too much: the piece would look like the other colour
    out = body.convert("RGBA")
    out.putalpha(alpha)
    return out


def recolour(im, white, white_tint, black_lift):
    """The piece image in another theme's colours (unchanged for the defaults)."""
    colour, weight = black_lift
    if (white and white_tint == (1.0, 1.0, 1.0)) or (not white and weight == 0.0):
        return im
    a = np.asarray(im, dtype=np.float32)
    rgb = a[..., :3] * np.array(white_tint) if white else \
        a[..., :3] * (1 - weight) + np.array(colour, np.float32) * weight
    return Image.fromarray(np.dstack([rgb, a[..., 3]]).clip(0, 255).astype(np.uint8), "RGBA")


@lru_cache(maxsize=8)
def ui_font(px, bold=False):
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return ImageFont.truetype(str(FONT_DIR / name), max(6, px))


def parse_fen(board_fen):
    """FEN board part -> 8x8 list of rows (rank 8 first) of piece letters or ''."""
    rows = []
    for rank in board_fen.split("/"):
        row = []
        for ch in rank:
            row.extend([""] * int(ch) if ch.isdigit() else [ch])
        assert len(row) == 8, board_fen
        rows.append(row)
    assert len(rows) == 8, board_fen
    return rows


def square_to_rc(square, view):
    """Algebraic square -> (row, col) in picture coordinates (row 0 at the top)."""
    f, r = ord(square[0]) - 97, int(square[1]) - 1
    return (7 - r, f) if view == "white" else (r, 7 - f)


def grid_edges(size):
    return [round(i * size / 8) for i in range(9)]


def draw_hatch(draw, x0, y0, x1, y1, spacing, width, color):
    for k in range(-(y1 - y0), x1 - x0, spacing):
        draw.line([(x0 + k, y1), (x0 + k + (y1 - y0), y0)], fill=color, width=width)


def render_board(board_fen, set_name, theme, size, view="white", decor=None, rng=None):
    """Render an RGB board image of exactly size x size pixels."""
    decor = decor or Decor()
    rng = rng or np.random.default_rng(0)
    e = grid_edges(size)
    img = Image.new("RGBA", (size, size), theme.light + (255,))
    draw = ImageDraw.Draw(img)
    cell = size / 8
    hatch_spacing = max(3, round(cell / rng.uniform(6, 10)))
    hatch_width = 1 if cell < 60 else int(rng.integers(1, 3))
    for r in range(8):
        for c in range(8):
            if (r + c) % 2 == 1:
                box = (e[c], e[r], e[c + 1] - 1, e[r + 1] - 1)
                draw.rectangle(box, fill=theme.dark + (255,))
                if theme.hatch:
                    sq = Image.new("RGBA", (e[c + 1] - e[c], e[r + 1] - e[r]), (0, 0, 0, 0))
                    draw_hatch(ImageDraw.Draw(sq), 0, 0, sq.width, sq.height,
                               hatch_spacing, hatch_width, (20, 20, 20, 255))
                    img.alpha_composite(sq, (e[c], e[r]))
    if decor.texture:
        img = square_texture(img, e, *decor.texture)
    overlay = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    od = ImageDraw.Draw(overlay)
    for sq in decor.last_move:
        r, c = square_to_rc(sq, view)
        od.rectangle((e[c], e[r], e[c + 1] - 1, e[r + 1] - 1), fill=decor.highlight)
    if decor.check:
        r, c = square_to_rc(decor.check, view)
        w = e[c + 1] - e[c]
        yy, xx = np.mgrid[0:w, 0:w]
        d = np.hypot(xx - w / 2, yy - w / 2) / (w / 2)
        a = (np.clip(1.0 - d, 0, 1) ** 0.7 * 230).astype(np.uint8)
        glow = Image.new("RGBA", (w, w), (255, 0, 0, 0))
        glow.putalpha(Image.fromarray(a))
        overlay.alpha_composite(glow, (e[c], e[r]))
    if decor.move_hints:
        draw_move_hints(od, e, view, board_fen, *decor.move_hints)
    img.alpha_composite(overlay)
    if decor.coords:
        draw_coords(img, view, theme, e)
    for r, row in enumerate(parse_fen(board_fen)):
        for c, piece in enumerate(row):
            if not piece:
                continue
            rr, cc = (r, c) if view == "white" else (7 - r, 7 - c)
            w = e[cc + 1] - e[cc]
            px = max(4, round(w * decor.piece_scale))
            im = scaled_piece(set_name, piece, px, decor.halo and theme.hatch,
                              decor.white_tint, decor.black_lift, decor.stroke, decor.inlay)
            img.alpha_composite(im, (e[cc] + (w - px) // 2, e[rr] + (w - px) // 2))
    for sq, rgba in decor.circles:
        r, c = square_to_rc(sq, view)
        layer = Image.new("RGBA", (size, size), (0, 0, 0, 0))
        w = e[c + 1] - e[c]
        ImageDraw.Draw(layer).ellipse((e[c] + 2, e[r] + 2, e[c + 1] - 3, e[r + 1] - 3),
                                      outline=rgba, width=max(2, round(w / 14)))
        img.alpha_composite(layer)
    for a, b, rgba in decor.arrows:
        img.alpha_composite(draw_arrow(size, e, a, b, rgba, view))
    if decor.pointer:
        draw_pointer(img, e, view, *decor.pointer)
    return img.convert("RGB")


def square_texture(img, e, kind, strength, period, seed):
    """Wood grain (its direction turning from square to square, as on inlaid boards)
    or marble-like smooth noise on the squares, as a relative change of brightness."""
    rng = np.random.default_rng(seed)
    size = img.width
    cell = size / 8

    def smooth_noise(step):
        coarse = rng.normal(0, 1, (size // step + 2, size // step + 2)).astype(np.float32)
        big = Image.fromarray(coarse).resize((size, size), Image.BICUBIC)
        return np.asarray(big)

    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    if kind == "wood":
        warp = smooth_noise(max(2, int(cell)))
        across = np.where(((xx // cell + yy // cell) % 2 == 0) | (rng.random() < 0.5), xx, yy)
        field = np.sin(2 * np.pi * (across / (period * cell) + 0.6 * warp)) + 0.5 * smooth_noise(2)
    else:  # "marble"
        field = smooth_noise(max(2, int(cell / 3))) + 0.5 * smooth_noise(max(2, int(cell / 10)))
    field = field / (np.abs(field).max() + 1e-6)
    a = np.asarray(img, dtype=np.float32)
    a[..., :3] *= 1 + strength * field[..., None]
    return Image.fromarray(a.clip(0, 255).astype(np.uint8), "RGBA")


def draw_move_hints(draw, e, view, board_fen, squares, rgba, radius):
    """Dots on the empty squares a selected piece may go to, rings round its captures."""
    occupied = {(r, c) for r, row in enumerate(parse_fen(board_fen)) for c, p in enumerate(row) if p}
    for sq in squares:
        r, c = square_to_rc(sq, view)
        cell = e[c + 1] - e[c]
        cx, cy = (e[c] + e[c + 1]) / 2, (e[r] + e[r + 1]) / 2
        board_rc = (r, c) if view == "white" else (7 - r, 7 - c)
        if board_rc in occupied:
            half = cell * 0.47
            draw.ellipse((cx - half, cy - half, cx + half, cy + half), outline=rgba,
                         width=max(2, round(cell * 0.09)))
        else:
            half = cell * radius
            draw.ellipse((cx - half, cy - half, cx + half, cy + half), fill=rgba)


# The usual arrow pointer of desktop systems, 12 x 19 units, tip at the origin.
POINTER_SHAPE = [(0, 0), (0, 16), (4, 12), (7, 19), (9, 18), (6, 11), (11, 11)]


def draw_pointer(img, e, view, square, size, dx, dy):
    """A white arrow pointer with a black outline, its tip in `square`."""
    r, c = square_to_rc(square, view)
    cell = e[c + 1] - e[c]
    x0, y0 = e[c] + dx * cell, e[r] + dy * cell
    unit = size * cell / 19
    points = [(x0 + x * unit, y0 + y * unit) for x, y in POINTER_SHAPE]
    ImageDraw.Draw(img).polygon(points, fill=(255, 255, 255, 255), outline=(0, 0, 0, 255),
                                width=max(1, round(unit)))


def draw_coords(img, view, theme, e):
    """lichess-style coordinates: rank digits top-left of the left file, file letters bottom-right."""
    draw = ImageDraw.Draw(img)
    cell = e[1] - e[0]
    font = ui_font(round(cell * 0.2), bold=True)
    files = "abcdefgh" if view == "white" else "hgfedcba"
    ranks = "87654321" if view == "white" else "12345678"
    ink = lambda r, c: (40, 40, 40) if theme.hatch else (theme.light if (r + c) % 2 else theme.dark)
    pad = max(1, round(cell * 0.05))
    for r in range(8):
        draw.text((e[0] + pad, e[r] + pad), ranks[r], font=font, fill=ink(r, 0), anchor="lt")
    for c in range(8):
        draw.text((e[c + 1] - pad, e[8] - pad), files[c], font=font, fill=ink(7, c), anchor="rs")


def draw_arrow(size, e, a, b, rgba, view):
    layer = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    d = ImageDraw.Draw(layer)
    (r0, c0), (r1, c1) = square_to_rc(a, view), square_to_rc(b, view)
    cell = size / 8
    x0, y0 = (c0 + 0.5) * cell, (r0 + 0.5) * cell
    x1, y1 = (c1 + 0.5) * cell, (r1 + 0.5) * cell
    ang = math.atan2(y1 - y0, x1 - x0)
    head, width = cell * 0.45, max(2, round(cell * 0.16))
    bx, by = x1 - head * math.cos(ang), y1 - head * math.sin(ang)
    solid = rgba[:3] + (255,)
    d.line([(x0, y0), (bx, by)], fill=solid, width=width)
    px, py = -math.sin(ang) * head * 0.6, math.cos(ang) * head * 0.6
    d.polygon([(x1, y1), (bx + px, by + py), (bx - px, by - py)], fill=solid)
    layer.putalpha(layer.getchannel("A").point(lambda v: v * rgba[3] // 255))
    return layer


def add_frame(board, width, color=(0, 0, 0), margin=0, margin_color=(255, 255, 255)):
    """Surround a board with an optional margin and a frame line; returns (image, grid offset)."""
    pad = margin + width
    out = Image.new("RGB", (board.width + 2 * pad, board.height + 2 * pad), color)
    if margin:
        ImageDraw.Draw(out).rectangle((width, width, out.width - width - 1, out.height - width - 1),
                                      fill=margin_color)
    out.paste(board, (pad, pad))
    return out, pad


LOREM = ("the quick brown fox jumps over the lazy dog while white plays for the initiative "
         "and black defends the weak pawn on d5 after the exchange of queens the endgame "
         "is drawn with accurate play analysis shows a clear advantage").split()


def text_block(draw, x, y, w, lines, px, color, rng):
    font = ui_font(px)
    for i in range(lines):
        words = rng.choice(LOREM, size=int(rng.integers(4, 12)))
        text = " ".join(words)
        while font.getlength(text) > w and " " in text:
            text = text.rsplit(" ", 1)[0]
        draw.text((x, y + i * int(px * 1.5)), text, font=font, fill=color)


def embed_in_page(board, page_w, page_h, rng, dark_mode=False):
    """Place a board image on a page with text blocks and buttons; returns (page, (x, y))."""
    bg = (38, 36, 33) if dark_mode else tuple(int(v) for v in rng.integers(235, 256, 3))
    fg = (200, 200, 200) if dark_mode else (40, 40, 40)
    page = Image.new("RGB", (page_w, page_h), bg)
    draw = ImageDraw.Draw(page)
    margin = 16
    x = int(rng.integers(margin, page_w - board.width - margin + 1))
    y = int(rng.integers(70, max(71, page_h - board.height - margin + 1)))
    y = max(margin, min(y, page_h - board.height - margin))
    # Header bar with a title and buttons.
    draw.rectangle((0, 0, page_w, 40), fill=(60, 60, 70) if not dark_mode else (25, 24, 22))
    draw.text((12, 12), "Chess study", font=ui_font(16, True), fill=(240, 240, 240))
    for i in range(3):
        bx = page_w - 110 * (i + 1)
        draw.rounded_rectangle((bx, 8, bx + 96, 32), radius=6, fill=(90, 140, 200))
        draw.text((bx + 48, 20), ["Login", "Play", "Learn"][i], font=ui_font(13), fill=(255, 255, 255),
                  anchor="mm")
    # Text and widgets in the free space left and right of the board.
    for x0, x1 in ((margin, x - margin), (x + board.width + margin, page_w - margin)):
        if x1 - x0 < 80:
            continue
        yy = 60
        while yy < page_h - 60:
            if rng.random() < 0.3:
                draw.rounded_rectangle((x0, yy, min(x1, x0 + 140), yy + 30), radius=5,
                                       fill=tuple(int(v) for v in rng.integers(60, 200, 3)))
                draw.text((x0 + 10, yy + 8), "Analyse", font=ui_font(13), fill=(255, 255, 255))
                yy += 45
            else:
                n = int(rng.integers(2, 6))
                text_block(draw, x0, yy, x1 - x0, n, 13, fg, rng)
                yy += n * 20 + 18
    draw.text((x, y - 22), "Black to move" if rng.random() < 0.5 else "White to move",
              font=ui_font(14, True), fill=fg)
    page.paste(board, (x, y))
    return page, (x, y)

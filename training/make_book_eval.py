"""Renders a held-out book set for `boardscan eval`: typeset PDF pages with
several diagrams and text on each, and a scanned copy of the same pages.

    python training/make_book_eval.py OUT_DIR [--pages 40] [--seed 31] [--font F] [--scan harsh] [--max-turn 0.8]
    boardscan eval OUT_DIR/labels.csv
    boardscan eval OUT_DIR/crops.csv

Writes `OUT_DIR/book-typeset.pdf` (born-digital: LaTeX's `chessboard` package,
the diagrams drawn with a chess font), `OUT_DIR/book-scanned.pdf` (every page
rasterised with `pdftoppm` at 150-200 dpi in greyscale, turned by up to 0.8
degrees (`--max-turn`), blurred, noised and saved as JPEG, then wrapped by `img2pdf`, so the
PDF holds only page images) and `OUT_DIR/labels.csv`
(`file,fen,view,kind,page,index`, one row per diagram, `index` in reading
order: rows from the top, left to right; `fen` the board and the side to
move where a typeset caption names it, so that `eval` also scores the side
read from the captions (the scanned copy has no text layer); `kind` is
`typeset` or `scanned`).
`OUT_DIR/labels-by-layout.csv` has the same rows with `kind` naming the
variant and the page layout (`typeset-grid`, `scanned-column`, ...).
`OUT_DIR/crops/` holds every diagram cut out of the scanned pages as a reader
crops one (the board and its coordinates, an uneven margin of 6-25 % of its
size that may take in a caption or prose; LaTeX records each diagram's box),
labelled in `OUT_DIR/crops.csv` with `kind` `crop-office`, or for `--scan
harsh` `crop-bilevel` and `crop-lowres`.

`--scan harsh` makes the scanned copy as a cheap scanner or a photocopier
would: half the pages bilevel at 200-300 dpi (thresholded, strokes thinner
or thicker with the threshold, so thin hatching may break into specks), half
grey at 100-150 dpi with ink spread or faded strokes and JPEG quality 35-70;
bleed-through of the previous page on 40 %.

`--scan photo` photographs the pages with a phone instead (`photograph`):
colour, paper and ink tinted by the light, the page seen at a slant (each
corner moved by up to 7 % of the side) and curled, out of focus, lit
unevenly, sensor noise, phone sharpening, JPEG 45-85. Each crop is a photo of
its own: a diagram photographed close up (the board 180-460 px), labelled
`crop-photo`.

Held-out typeface: **AlphaDia** (Eric Bentzen's Chess Alpha, the version for
`chessboard`/`chessfss` in texlive's `skaknew` fonts, with hatched dark
squares). The square classifier never trained on it: the training sets come
from pychess, tagua-data, DejaVu/FreeFont/Symbola, xboard, npm and PyPI
packages (`fetch_assets.py`), none from texlive, and Alpha is one of the two
design families held out of training in every package where it appears
(`HELD_OUT` in `gen_data.py`), so it stays held out when texlive's fonts join
the training data, as long as AlphaDia is given the family `alpha` there.
The other LaTeX chess fonts were not chosen: SkakNew/skak (and the older
`chess` fonts it derives from) draw `testdata/pdf/`, which the pipeline is
tuned on, and are the obvious first choice for book-page training data;
Bartel's Elch fonts need the `diagram` package, which needs PSTricks (no
pdflatex).

Pages are A5, each with 1-4 diagrams in one of the usual book layouts: one
centred (`single`), two side by side (`pair`), a column of two (`column`) or
2x2 (`grid`); with a heading now and then, paragraphs of move-list prose
before and after, and captions ("12. White to move", "Diagram 7", "Black to
play"; Russian "Ход белых" only where texlive has the T2A encoding, which
this machine's does not). Coordinates beside the board on about half the
pages. Positions come from random legal play (20-90 plies, captures
preferred half the time, so that material thins out as in real games), White
at the bottom as in nearly every book.

Needs Debian's texlive-games, texlive-latex-extra, poppler-utils and img2pdf,
and Python's `chess`, Pillow, numpy and (for `--scan photo`) scipy
(`training/requirements.txt`). Seeded
and deterministic for one seed (the TeX and the images; the PDFs' embedded
dates aside). Not run by CI; never commit its output.
"""

import argparse
import csv
import io
import random
import shutil
import subprocess
import tempfile
from pathlib import Path

import chess
import numpy as np
from PIL import Image, ImageFilter
from scipy.ndimage import map_coordinates

# Board font families: AlphaDia (held out of training), and texlive's Skak fonts in
# their Type 1 (skaknew) and Metafont (skak) cuts, which no training set uses either.
FONT_FAMILIES = ["alphadia", "skaknew", "skak"]
LAYOUTS = ["single", "pair", "column", "grid"]

PREAMBLE = r"""\documentclass[10pt]{article}
\usepackage[a5paper,margin=14mm]{geometry}
\usepackage{chessboard}
%RUSSIAN%
% AlphaDia has the LSB layout of SkakNew-Diagram; chessfss has no .fd for it.
\DeclareFontFamily{LSB}{alphadia}{}
\DeclareFontShape{LSB}{alphadia}{m}{n}{<-> AlphaDia}{}
\setboardfontfamily{%FONT%}
\setchessboard{showmover=false}
\pagestyle{plain}
\parskip=4pt
% Each diagram's box on its page, for the crops: page, x and y of its
% baseline's left end (sp from the page's bottom left), width, height, depth.
\newsavebox\diagbox
\newwrite\posfile
\immediate\openout\posfile=\jobname.pos
\newcommand\diagpos[1]{\leavevmode\sbox\diagbox{#1}%
  \edef\diagwrite{\write\posfile{\noexpand\thepage\space\noexpand\the\noexpand\pdflastxpos\space
    \noexpand\the\noexpand\pdflastypos\space\the\wd\diagbox\space\the\ht\diagbox\space\the\dp\diagbox}}%
  \pdfsavepos\diagwrite\usebox\diagbox}
\begin{document}
"""

SENTENCES = [
    "The bishop pair gives White a lasting edge.",
    "Black's knight finds no outpost on the queenside.",
    "After the exchange on the long diagonal the pawn structure is fixed.",
    "Both sides must now look for play on the wings.",
    "Here the rook belongs on the open file.",
    "The queen cannot leave her king alone for long.",
    "A typical plan is a minority attack against the pawns on c6 and b7.",
    "Black's last move prepares a break in the centre, but it loosens the dark squares.",
    "Every tempo counts in such positions.",
    "The side with the more active pieces usually decides the game.",
    "Find the move that wins material.",
    "Look for a combination based on the weak back rank.",
    "White's pieces are better placed, yet the position is far from won.",
    "The passed pawn is strong only while it is supported.",
    "Count the attackers and the defenders of each square before you take.",
]


def random_position(rng):
    """A position from random legal play: the board, and the game's moves in SAN."""
    board = chess.Board()
    plies = rng.randint(20, 90)
    greedy = rng.random() < 0.5
    san = []
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        captures = [m for m in moves if board.is_capture(m)]
        move = rng.choice(captures if greedy and captures and rng.random() < 0.6 else moves)
        san.append(board.san(move))
        board.push(move)
    if board.is_game_over() or len(board.piece_map()) < 5:
        return random_position(rng)
    return board, san


def move_text(san, rng):
    """A stretch of the game's moves, numbered as in a book."""
    start = rng.randrange(0, max(1, len(san) - 8))
    out = []
    for i in range(start, min(len(san), start + rng.randint(4, 10))):
        if i % 2 == 0:
            out.append(f"{i // 2 + 1}.{san[i]}")
        elif not out:
            out.append(f"{i // 2 + 1}...{san[i]}")
        else:
            out.append(san[i])
    return tex_escape(" ".join(out))


def tex_escape(text):
    return text.replace("#", r"\#").replace("&", r"\&").replace("%", r"\%")


def paragraph(rng, san, sentences):
    parts = []
    for _ in range(sentences):
        parts += rng.sample(SENTENCES, rng.randint(2, 3))
        if rng.random() < 0.5:
            parts.append(f"The game went {move_text(san, rng)}.")
    return " ".join(parts)


def caption(rng, board, number, russian):
    """The caption under a diagram and whether it tells the side to move."""
    white = board.turn == chess.WHITE
    style = rng.random()
    if russian and style < 0.2:
        text = r"{\fontencoding{T2A}\selectfont " + ("Ход белых" if white else "Ход черных") + "}"
    elif style < 0.55:
        text = "White to move" if white else "Black to move"
    elif style < 0.8:
        text = "White to play" if white else "Black to play"
    else:
        return f"Diagram {number}", False
    return f"{number}. {text}", True


def diagram(board, size_pt, labels):
    fen = board.fen()
    opts = [f"setfen={fen}", f"boardfontsize={size_pt}pt"]
    if not labels:
        opts += ["labelleft=false", "labelbottom=false"]
    return r"\diagpos{\chessboard[" + ", ".join(opts) + "]}"


def page_tex(rng, layout, positions, first_number, russian):
    """One page's TeX; `positions` are (board, san) in reading order."""
    labels = rng.random() < 0.5
    lines = []
    if rng.random() < 0.3:
        lines.append(r"\section*{" + rng.choice(["Exercises", "Endgames", "Tactics", "Model games", "Test yourself"]) + "}")
    san = positions[0][1]
    lines.append(r"\noindent " + paragraph(rng, san, rng.randint(1, 2 if layout in ("grid", "column") else 3)))
    numbers = range(first_number, first_number + len(positions))
    captions = [
        (diagram(b, size, labels), caption(rng, b, n, russian))
        for (b, _), n, size in zip(
            positions,
            numbers,
            [rng.choice({"single": [18, 20, 22], "pair": [12, 13, 14], "column": [13, 14, 15], "grid": [12, 13]}[layout])] * 4,
        )
    ]
    boxes = [(d, text) for d, (text, _) in captions]

    def minipage(box, width):
        d, c = box
        return (
            r"\begin{minipage}[t]{" + width + r"\textwidth}\centering" + "\n" + d + r"\\[2pt]" + "\n"
            + r"\small " + c + "\n" + r"\end{minipage}"
        )

    lines.append(r"\par\medskip")
    if layout == "single":
        d, c = boxes[0]
        lines += [r"\begin{center}", d, r"\\[3pt]", r"\small " + c, r"\end{center}"]
    elif layout == "pair":
        lines += [r"\noindent" + minipage(boxes[0], "0.48") + r"\hfill" + minipage(boxes[1], "0.48")]
    elif layout == "column":
        lines += [r"\begin{center}", minipage(boxes[0], "0.7"), r"\\[8pt]", minipage(boxes[1], "0.7"), r"\end{center}"]
    else:
        lines += [
            r"\noindent" + minipage(boxes[0], "0.48") + r"\hfill" + minipage(boxes[1], "0.48"),
            r"\par\medskip",
            r"\noindent" + minipage(boxes[2], "0.48") + r"\hfill" + minipage(boxes[3], "0.48"),
        ]
    lines.append(r"\par\medskip")
    if layout in ("single", "pair"):
        lines.append(r"\noindent " + paragraph(rng, positions[-1][1], rng.randint(1, 2)))
    lines.append(r"\newpage")
    return "\n".join(lines) + "\n", [told for _, (_, told) in captions]


def make_tex(rng, pages, russian, font):
    """The book's TeX and its diagrams as (page, index, layout, board, told),
    `told` when the caption names the side to move."""
    body, diagrams, number = [], [], 1
    for page in range(1, pages + 1):
        layout = rng.choice(LAYOUTS)
        count = {"single": 1, "pair": 2, "column": 2, "grid": 4}[layout]
        positions = [random_position(rng) for _ in range(count)]
        tex, told = page_tex(rng, layout, positions, number, russian)
        body.append(tex)
        for index, ((board, _), tells) in enumerate(zip(positions, told), 1):
            diagrams.append((page, index, layout, board, tells))
        number += count
    preamble = PREAMBLE.replace("%RUSSIAN%", r"\usepackage[T2A,OT1]{fontenc}" if russian else "")
    preamble = preamble.replace("%FONT%", font)
    return preamble + "".join(body) + "\\end{document}\n", diagrams


def page_count(pdf):
    info = subprocess.run(["pdfinfo", str(pdf)], check=True, capture_output=True, text=True).stdout
    return int(next(line.split()[1] for line in info.splitlines() if line.startswith("Pages:")))


def scan_page(png_bytes, rng, dpi, harsh=False, behind=None, max_turn=0.8):
    """One rasterised page as a scanner would hand it over, turned by up to
    `max_turn` degrees: JPEG bytes, or for `harsh` scans now and then a
    bilevel PNG. A harsh scan may show `behind` (the previous page's picture)
    through the paper, mirrored."""
    img = Image.open(io.BytesIO(png_bytes)).convert("L")
    img = img.rotate(rng.uniform(-max_turn, max_turn), resample=Image.BICUBIC, expand=False, fillcolor=255)
    if harsh:
        return harsh_scan(img, rng, dpi, behind)
    if rng.random() < 0.7:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 0.9)))
    a = np.asarray(img, dtype=np.float32)
    # Paper a little grey, ink not quite black, uneven light across the page.
    paper, ink = rng.uniform(225, 250), rng.uniform(10, 45)
    a = ink + (paper - ink) * (a / 255.0)
    h, w = a.shape
    gradient = np.linspace(0, rng.uniform(-18, 18), w)[None, :] + np.linspace(0, rng.uniform(-12, 12), h)[:, None]
    noise = np.random.default_rng(rng.randrange(2**32)).normal(0, rng.uniform(3, 9), a.shape)
    a = np.clip(a + gradient + noise, 0, 255).astype(np.uint8)
    out = io.BytesIO()
    Image.fromarray(a).save(out, "JPEG", quality=rng.randint(55, 90), dpi=(dpi, dpi))
    return out.getvalue()


def harsh_scan(img, rng, dpi, behind):
    """A cheap scanner or a photocopy: bleed-through, then either a bilevel
    scan at 200-300 dpi (thresholded, as fax-like CCITT scans are, strokes
    thinner or thicker with the threshold) or a grey one at 100-150 dpi with
    ink spread or faded strokes and heavy JPEG. `dpi` is the page's: high
    for bilevel, low for grey."""
    a = np.asarray(img, dtype=np.float32)
    if behind is not None and rng.random() < 0.4:
        back = np.asarray(behind.transpose(Image.FLIP_LEFT_RIGHT).resize(img.size), dtype=np.float32)
        a = a - (255.0 - back) * rng.uniform(0.08, 0.2)
    h, w = a.shape
    out = io.BytesIO()
    if dpi >= 200:
        a = np.asarray(grey(a).filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 0.8))), dtype=np.float32)
        a = a + np.random.default_rng(rng.randrange(2**32)).normal(0, rng.uniform(4, 12), a.shape)
        Image.fromarray(np.where(a > rng.uniform(130, 190), 255, 0).astype(np.uint8)).convert("1").save(out, "PNG", dpi=(dpi, dpi))
        return out.getvalue()
    stroke = rng.random()
    if stroke < 0.3:
        a = np.asarray(grey(a).filter(ImageFilter.MinFilter(3)), dtype=np.float32) * 0.5 + a * 0.5
    elif stroke < 0.5:
        a = np.asarray(grey(a).filter(ImageFilter.MaxFilter(3)), dtype=np.float32) * 0.4 + a * 0.6
    a = np.asarray(grey(a).filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 0.8))), dtype=np.float32)
    a = a + np.random.default_rng(rng.randrange(2**32)).normal(0, rng.uniform(4, 12), a.shape)
    paper, ink = rng.uniform(215, 245), rng.uniform(20, 60)
    a = ink + (paper - ink) * (np.clip(a, 0, 255) / 255.0)
    a = a + np.linspace(0, rng.uniform(-25, 25), w)[None, :] + np.linspace(0, rng.uniform(-18, 18), h)[:, None]
    grey(a).save(out, "JPEG", quality=rng.randint(35, 70), dpi=(dpi, dpi))
    return out.getvalue()


def viewer_screenshot(png_bytes, rng):
    """A page as a PDF viewer shows it at screen zoom and a reader takes a
    screenshot of it: colour, antialiased, and faint where the viewer or the
    scan it shows draws ink in light grey (thin lines and hatching fade to a
    pale grey board), on paper that is white or slightly tinted; saved as PNG."""
    a = np.asarray(Image.open(io.BytesIO(png_bytes)).convert("RGB"), dtype=np.float32)
    paper = np.array([rng.uniform(240, 255) for _ in range(3)], dtype=np.float32)
    ink = rng.uniform(60, 150)
    a = ink + (paper - ink) * (a / 255.0)
    out = io.BytesIO()
    Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)).save(out, "PNG")
    return out.getvalue()


def photograph(img, rng, scale):
    """A phone's photo of the printed greyscale page `img`, taken down by
    `scale`: the page at a slant and curled, tinted paper and ink, soft focus,
    uneven light and noise, sharpened now and then; JPEG bytes."""
    g = np.asarray(img.convert("L"), dtype=np.float32) / 255.0
    h, w = g.shape
    # Where each corner of the photo looks on the page: the page at a slant.
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)
    seen = corners + np.array([[rng.uniform(-0.07, 0.07) * w, rng.uniform(-0.07, 0.07) * h] for _ in range(4)])
    to_page = homography(corners, seen)
    oh, ow = max(16, round(h * scale)), max(16, round(w * scale))
    ys, xs = np.mgrid[0:oh, 0:ow] / scale
    u, v, t = (to_page @ np.stack([xs.ravel(), ys.ravel(), np.ones(xs.size)])).reshape(3, oh, ow)
    u, v = u / t, v / t
    v = v + rng.uniform(-0.015, 0.015) * h * np.sin(np.pi * u / w)  # the page's curl
    px = map_coordinates(g, [v, u], order=1, cval=0.25)
    tint = lambda spread: np.array([rng.uniform(1 - spread, 1 + spread) for _ in range(3)])
    paper = rng.uniform(170, 245) * tint(0.04) * np.array([1.0, 0.97, rng.uniform(0.82, 1.0)])
    ink = rng.uniform(10, 70) * tint(0.15)
    a = ink + (paper - ink) * px[..., None]
    photo = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(rng.uniform(0.4, 1.4)))
    gy, gx = np.mgrid[0:oh, 0:ow] / np.array([oh, ow])[:, None, None]
    light = 1 + rng.uniform(-0.3, 0.3) * (gx - 0.5) + rng.uniform(-0.3, 0.3) * (gy - 0.5)
    light -= rng.uniform(0, 0.35) * ((gx - 0.5) ** 2 + (gy - 0.5) ** 2)
    noise = np.random.default_rng(rng.randrange(2**32)).normal(0, rng.uniform(2, 8), (oh, ow, 3))
    photo = Image.fromarray(np.clip(np.asarray(photo, dtype=np.float32) * light[..., None] + noise, 0, 255).astype(np.uint8))
    if rng.random() < 0.4:
        photo = photo.filter(ImageFilter.UnsharpMask(radius=rng.uniform(1, 2.5), percent=rng.randint(60, 160)))
    out = io.BytesIO()
    photo.save(out, "JPEG", quality=rng.randint(45, 85))
    return out.getvalue()


def homography(src, dst):
    """The 3x3 projective map taking the four points `src` to `dst`."""
    rows = []
    for (x, y), (u, v) in zip(src, dst):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y, -u])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y, -v])
    return np.linalg.svd(np.array(rows))[2][-1].reshape(3, 3)


def grey(a):
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))


def diagram_boxes(pos_file, diagrams):
    """Each page's diagram boxes in reading order, `(left, bottom, width,
    height)` in TeX points from the page's bottom left, as `\\diagpos` wrote
    them at shipout."""
    boxes = {}
    for line in pos_file.read_text().split("\n"):
        if line.strip():
            page, x, y, wd, ht, dp = line.split()
            pt = lambda v: float(v.removesuffix("pt")) if v.endswith("pt") else int(v) / 65536
            boxes.setdefault(int(page), []).append((pt(x), pt(y) - pt(dp), pt(wd), pt(ht) + pt(dp)))
    for page in {d[0] for d in diagrams}:
        planned = sum(1 for d in diagrams if d[0] == page)
        if len(boxes.get(page, [])) != planned:
            raise SystemExit(f"page {page}: {len(boxes.get(page, []))} diagram boxes recorded, {planned} planned")
    return boxes


def crop_diagram(page_img, box, dpi, rng):
    """One diagram cut out of a scanned page the way a reader crops it: the
    board and its coordinates with an uneven margin of 6-25 % of its size
    (room for the page's slight turn), which may take in a caption or prose."""
    left, bottom, width, height = (v / 72.27 * dpi for v in box)
    top = page_img.height - (bottom + height)
    side = max(width, height)
    margin = lambda: rng.uniform(0.06, 0.25) * side
    x0, y0 = max(0, left - margin()), max(0, top - margin())
    x1, y1 = min(page_img.width, left + width + margin()), min(page_img.height, top + height + margin())
    return page_img.crop(tuple(round(v) for v in (x0, y0, x1, y1)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--pages", type=int, default=40)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--font", choices=FONT_FAMILIES, default="alphadia", help="the diagrams' typeface")
    ap.add_argument(
        "--scan", choices=["office", "harsh", "viewer", "photo"], default="office",
        help="the scanned copy: an office scanner at 150-200 dpi, or a cheap one: bilevel at 200-300 dpi "
        "or grey at 100-150 dpi with ink spread or faded strokes and heavy JPEG, bleed-through; or "
        "screenshots of a PDF viewer at 72-110 dpi with faint ink; or phone photos (`photograph`)",
    )
    ap.add_argument("--max-turn", type=float, default=0.8, help="turn each scanned page by up to this many degrees")
    a = ap.parse_args()
    for tool in ("pdflatex", "pdftoppm", "pdfinfo", "img2pdf", "kpsewhich"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} not found: install texlive-games, texlive-latex-extra, poppler-utils, img2pdf")
    russian = subprocess.run(["kpsewhich", "t2aenc.def"], capture_output=True).returncode == 0
    rng = random.Random(a.seed)
    a.out.mkdir(parents=True, exist_ok=True)
    tex, diagrams = make_tex(rng, a.pages, russian, a.font)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "book.tex").write_text(tex)
        (a.out / "book-typeset.tex").write_text(tex)
        run = subprocess.run(
            ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "book.tex"],
            cwd=tmp, capture_output=True, text=True,
        )
        if run.returncode != 0:
            raise SystemExit(f"pdflatex failed:\n{run.stdout[-3000:]}")
        typeset = a.out / "book-typeset.pdf"
        shutil.copy(tmp / "book.pdf", typeset)
        # Every page must hold exactly what was planned for it, or the labels lie.
        if page_count(typeset) != a.pages:
            raise SystemExit(f"{typeset} has {page_count(typeset)} pages, not {a.pages}: a page overflowed")
        boxes = diagram_boxes(tmp / "book.pos", diagrams)
        scans, behind, crops = [], None, []
        # The crops' margins draw from their own stream, so the pages stay those of earlier versions.
        crop_rng = random.Random(f"crops-{a.seed}")
        harsh, viewer, photo = a.scan == "harsh", a.scan == "viewer", a.scan == "photo"
        (a.out / "crops").mkdir(exist_ok=True)
        for page in range(1, a.pages + 1):
            if viewer:
                dpi = rng.randint(72, 110)
            elif photo:
                dpi = 300  # photographed from the print, then taken down
            else:
                dpi = (rng.randint(200, 300) if rng.random() < 0.5 else rng.randint(100, 150)) if harsh else rng.randint(150, 200)
            colour = [] if viewer else ["-gray"]
            png = subprocess.run(
                ["pdftoppm", "-r", str(dpi), *colour, "-png", "-f", str(page), "-l", str(page), str(typeset)],
                check=True, capture_output=True,
            ).stdout
            path = tmp / f"page-{page:03}.scan"
            if viewer:
                path.write_bytes(viewer_screenshot(png, rng))
            elif photo:
                path.write_bytes(photograph(Image.open(io.BytesIO(png)), rng, rng.uniform(0.4, 0.6)))
            else:
                path.write_bytes(scan_page(png, rng, dpi, harsh, behind, a.max_turn))
            behind = Image.open(io.BytesIO(png)).convert("L")
            scans.append(str(path))
            kind = "crop-" + ("viewer" if viewer else "photo" if photo else "office" if not harsh else "bilevel" if dpi >= 200 else "lowres")
            # A photographed diagram is a close-up photo of the print, not a cut from the page's photo.
            scanned = Image.open(io.BytesIO(png) if photo else path).convert("RGB" if viewer else "L")
            for index, box in enumerate(boxes[page], 1):
                name = f"crops/p{page:03}-{index}." + ("jpg" if photo else "png")
                crop = crop_diagram(scanned, box, dpi, crop_rng)
                if photo:
                    board_px = box[2] / 72.27 * dpi
                    (a.out / name).write_bytes(photograph(crop, crop_rng, crop_rng.uniform(180, 460) / board_px))
                else:
                    crop.save(a.out / name)
                crops.append((name, page, index, kind))
        subprocess.run(["img2pdf", "-o", str(a.out / "book-scanned.pdf"), *scans], check=True)
    header = ["file", "fen", "view", "kind", "page", "index"]
    for name, kind_of in (
        ("labels.csv", lambda variant, layout: variant),
        ("labels-by-layout.csv", lambda variant, layout: f"{variant}-{layout}"),
    ):
        with open(a.out / name, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(header)
            for variant in ("typeset", "scanned"):
                for page, index, layout, board, told in diagrams:
                    # Only the typeset PDF has a text layer to read a caption from.
                    side = (" w" if board.turn == chess.WHITE else " b") if told and variant == "typeset" else ""
                    w.writerow([f"book-{variant}.pdf", f"{board.board_fen()}{side}", "white", kind_of(variant, layout), page, index])
    boards = {(page, index): board for page, index, _, board, _ in diagrams}
    with open(a.out / "crops.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["file", "fen", "view", "kind"])
        for name, page, index, kind in crops:
            w.writerow([name, boards[(page, index)].board_fen(), "white", kind])
    counts = {l: sum(1 for d in diagrams if d[2] == l) for l in LAYOUTS}
    print(f"{a.out}: {a.pages} pages, {len(diagrams)} diagrams per variant {counts}; russian captions: {russian}")


if __name__ == "__main__":
    main()

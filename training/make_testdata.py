"""Render the project's recognition test fixtures (deterministic).

Writes testdata/boards/*.png with testdata/boards.csv (`file,fen,view`) and
testdata/negative/*.png with testdata/negatives.csv (`file`). Styles are kept
clean: an axis-aligned board with its square grid visible, mild decorations,
and in page embeddings the board never touches the canvas edge.
"""

import csv
from pathlib import Path

import chess
import numpy as np
from PIL import Image, ImageDraw

from render import (THEME_BY_NAME, Decor, add_frame, embed_in_page, render_board,
                    text_block, ui_font)

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "testdata"

POSITIONS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
    "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R",
    "rnbqkb1r/1p2pppp/p2p1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R",
    "rnbqkb1r/ppp2ppp/4pn2/3p2B1/2PP4/2N5/PP2PPPP/R2QKBNR",
    "r1bk1b1r/ppp2ppp/2p5/4Pn2/8/5N2/PPP2PPP/RNB2RK1",
    "rnbq1rk1/ppp1ppbp/3p1np1/8/2PPP3/2N2N2/PP3PPP/R1BQKB1R",
    "r2q1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R2Q1RK1",
    "1K1k4/1P6/8/8/8/8/r7/2R5",
    "8/8/8/4k3/8/8/3QK3/8",
    "8/1P4k1/8/8/8/8/5Kp1/8",
    "r1b1k2r/pp1nqppp/2pbpn2/3p4/2PP4/1PN1PN2/PB3PPP/R2QKB1R",
    "8/8/8/8/8/8/8/K6k",
    "8/5pk1/6p1/8/3R4/6P1/5PK1/r7",
    "8/8/3kp3/8/3P1B2/4K3/8/5b2",
    "8/2n5/5k2/8/3N4/2K5/8/8",
    "rnb1kbnr/ppp1pppp/8/q7/8/2N5/PPPP1PPP/R1BQKBNR",
    "rnbqkbnr/ppp2ppp/4p3/3pP3/3P4/8/PPP2PPP/RNBQKBNR",
    "r1bq1rk1/pp2ppbp/2np1np1/8/3NP3/2N1BP2/PPPQ2PP/R3KB1R",
    "2rq1rk1/pp1bppbp/3p1np1/8/3NP3/1BN1BP2/PPPQ2PP/2KR3R",
    "8/8/3k4/8/2r5/8/1Q6/4K3",
    "3Q4/6k1/8/8/8/8/5K2/1q1Q4",
    "6k1/5p2/6p1/8/2b5/8/5PPP/4B1K1",
]


def write_csv(path, header, rows):
    """A labels file as `boardscan eval` and the tests read it."""
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def random_game_positions(n, rng):
    """Positions from seeded random play (20-70 plies), for extra variety."""
    out = []
    while len(out) < n:
        board = chess.Board()
        for _ in range(int(rng.integers(20, 71))):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(moves[int(rng.integers(len(moves)))])
        if not board.is_game_over():
            out.append(board.board_fen())
    return out


# (set, theme, size, view, style, decorations) for each fixture; style is
# "plain" (board only), "framed" (thin frame and margin), "book" (frame, margin
# and caption) or "page" (1200x800 page, board off-centre).
SPECS = [
    ("pychess-cburnett", "lichess-brown", 400, "white", "plain", {}),
    ("pychess-cburnett", "lichess-brown", 480, "black", "plain", {"coords": True}),
    ("pychess-merida", "chesscom-green", 512, "white", "plain", {"coords": True}),
    ("cbe-wikipedia", "lichess-blue", 320, "white", "plain", {}),
    ("cm-staunty", "chesscom-green", 360, "black", "plain", {}),
    ("pychess-kosal", "grey", 256, "white", "plain", {}),
    ("font-merida-pychess", "hatched", 400, "white", "book", {"halo": True}),
    ("font-cases-pychess", "hatched", 360, "white", "book", {"halo": True}),
    ("font-condal-pychess", "hatched-cream", 320, "black", "book", {"halo": True}),
    ("font-merida-pychess", "book-grey", 300, "white", "framed", {}),
    ("pychess-merida", "wood", 440, "white", "framed", {}),
    ("cbe-wikipedia", "book-white", 280, "white", "framed", {}),
    ("pychess-cburnett", "lichess-brown", 480, "white", "page", {"coords": True, "last_move": True}),
    ("pychess-cburnett", "lichess-brown", 400, "black", "page", {"last_move": True}),
    ("pychess-merida", "chesscom-green", 560, "white", "page", {"coords": True, "last_move": True}),
    ("cm-staunty", "blue2", 360, "white", "page", {}),
    ("cbe-wikipedia", "olive", 440, "black", "page", {"coords": True}),
    ("font-cases-pychess", "hatched", 400, "white", "page", {"halo": True}),
    ("pychess-kosal", "purple", 320, "white", "page", {}),
    ("pychess-merida", "tan", 600, "black", "plain", {"last_move": True}),
    ("pychess-cburnett", "slate", 640, "white", "plain", {}),
    ("cm-staunty", "lichess-brown", 240, "white", "plain", {}),
    ("cbe-wikipedia", "coral", 384, "white", "plain", {"coords": True}),
    ("font-usual-pychess", "book-white", 336, "black", "framed", {}),
    ("pychess-cburnett", "pale-blue", 420, "white", "framed", {}),
    ("pychess-freestaunton", "chesscom-green", 500, "white", "page", {"last_move": True}),
    ("font-condal-pychess", "hatched", 288, "white", "book", {"halo": True}),
    ("pychess-cburnett", "lichess-brown", 464, "black", "page", {"coords": True}),
]

# Book diagrams photographed askew: (set, theme, size, view, degrees turned
# counter-clockwise). Rendered after SPECS with their own random stream, so
# that adding them left the earlier fixtures unchanged.
TURNED_SPECS = [
    ("font-merida-pychess", "hatched", 360, "white", 3.0),
    ("pychess-cburnett", "book-grey", 400, "black", -4.0),
]


def last_move_squares(fen, rng):
    """Two squares for a last-move highlight: an occupied one and an empty one."""
    rows = [r for r in fen.split("/")]
    occupied, empty = [], []
    for i, rank in enumerate(rows):
        f = 0
        for ch in rank:
            if ch.isdigit():
                empty += [chr(97 + f + k) + str(8 - i) for k in range(int(ch))]
                f += int(ch)
            else:
                occupied.append(chr(97 + f) + str(8 - i))
                f += 1
    return (occupied[int(rng.integers(len(occupied)))], empty[int(rng.integers(len(empty)))])


def book_page(board, rng, caption):
    """Book-style diagram: frame line, white margin, caption below."""
    framed, _ = add_frame(board, 2, margin=int(rng.integers(3, 8)))
    page = Image.new("RGB", (framed.width + 60, framed.height + 90), (252, 251, 247))
    page.paste(framed, (30, 24))
    draw = ImageDraw.Draw(page)
    draw.text((page.width // 2, framed.height + 44), caption, font=ui_font(16, True),
              fill=(20, 20, 20), anchor="mt")
    return page


def make_negatives(rng):
    out = OUT / "negative"
    out.mkdir(parents=True, exist_ok=True)
    files = []
    page = Image.new("RGB", (640, 420), (250, 250, 250))
    d = ImageDraw.Draw(page)
    d.rectangle((0, 0, 640, 44), fill=(50, 60, 80))
    d.text((14, 14), "Weekly newsletter", font=ui_font(16, True), fill=(255, 255, 255))
    text_block(d, 24, 70, 360, 14, 13, (40, 40, 40), rng)
    d.rounded_rectangle((420, 70, 610, 250), radius=8, fill=(220, 230, 240), outline=(120, 140, 170))
    d.rounded_rectangle((440, 280, 590, 316), radius=6, fill=(90, 140, 200))
    d.text((515, 298), "Subscribe", font=ui_font(14), fill=(255, 255, 255), anchor="mm")
    files.append("negative/page-text.png")
    page.save(OUT / files[-1], optimize=True)

    table = Image.new("RGB", (560, 380), (255, 255, 255))
    d = ImageDraw.Draw(table)
    d.text((20, 16), "Tournament standings", font=ui_font(18, True), fill=(30, 30, 30))
    for i in range(7):
        y = 60 + i * 42
        d.rectangle((20, y, 540, y + 42), fill=(240, 243, 248) if i % 2 else (255, 255, 255),
                    outline=(200, 200, 200))
        text_block(d, 30, y + 14, 480, 1, 13, (50, 50, 50), rng)
    d.ellipse((440, 300, 520, 370), fill=(230, 120, 90))
    files.append("negative/table.png")
    table.save(OUT / files[-1], optimize=True)
    write_csv(OUT / "negatives.csv", ["file"], [[f] for f in files])


def main():
    rng = np.random.default_rng(20261129)
    positions = POSITIONS + random_game_positions(len(SPECS) - len(POSITIONS), rng)
    for fen in positions:
        assert chess.Board(fen + " w - - 0 1").is_valid() or chess.Board(fen + " b - - 0 1").is_valid(), fen
    boards_dir = OUT / "boards"
    boards_dir.mkdir(parents=True, exist_ok=True)
    for old in boards_dir.glob("*.png"):
        old.unlink()
    rows = []
    for i, ((set_name, theme_name, size, view, style, opts), fen) in enumerate(zip(SPECS, positions)):
        theme = THEME_BY_NAME[theme_name]
        decor = Decor(coords=opts.get("coords", False), halo=opts.get("halo", False),
                      piece_scale=0.96 if set_name.startswith("font-") else 0.9)
        if opts.get("last_move"):
            decor.last_move = last_move_squares(fen, rng)
        board = render_board(fen, set_name, theme, size, view, decor, rng)
        if style == "framed":
            img, _ = add_frame(board, 2, margin=int(rng.integers(0, 6)))
            img, _ = add_frame(img, 12, color=(255, 255, 255))
        elif style == "book":
            img = book_page(board, rng, f"Diagram {i + 1}")
        elif style == "page":
            img, _ = embed_in_page(board, 1200, 800, rng, dark_mode=bool(i % 3 == 0))
        else:
            img = board
        name = f"boards/{i + 1:02d}-{set_name}-{theme_name}-{view}.png"
        img.save(OUT / name, optimize=True)
        rows.append((name, fen, view))
    turned_rng = np.random.default_rng(20261130)
    turned_positions = random_game_positions(len(TURNED_SPECS), turned_rng)
    for i, ((set_name, theme_name, size, view, degrees), fen) in enumerate(
            zip(TURNED_SPECS, turned_positions), start=len(SPECS)):
        decor = Decor(halo=True, piece_scale=0.96 if set_name.startswith("font-") else 0.9)
        board = render_board(fen, set_name, THEME_BY_NAME[theme_name], size, view, decor, turned_rng)
        page = book_page(board, turned_rng, f"Diagram {i + 1}")
        img = page.rotate(degrees, resample=Image.BICUBIC, expand=True, fillcolor=(252, 251, 247))
        name = f"boards/{i + 1:02d}-{set_name}-{theme_name}-{view}-turned.png"
        img.save(OUT / name, optimize=True)
        rows.append((name, fen, view))
    write_csv(OUT / "boards.csv", ["file", "fen", "view"], rows)
    make_negatives(rng)
    print(f"{len(rows)} boards, 2 negatives")


if __name__ == "__main__":
    main()

"""Render recordings of chess games with known moves: animated GIFs as lichess and
chess.com export them, and screen recordings (MP4, WebM) of an online game, for
measuring how well boardscan recovers a game's move list from a recording (issue #52).

    python make_recordings.py OUT_DIR [--gifs 20] [--mp4s 20] [--webms 0] [--seed 52]
    python make_recordings.py --fixture ../testdata/recordings

Games are played by Stockfish (/usr/games/stockfish, through python-chess's engine
module, one thread, node limits, so the same seed gives the same games): 4-10 random
opening plies, then low node counts choosing among the best few moves at random;
20-80 plies; about a quarter of them played on until one side is mated, and a few start
from a middlegame position reached by random play (its FEN is the start FEN).

Every game is drawn with `render.render_board`'s squares, highlights, coordinates and
arrows and the pieces of a screenshot-style set (the lichess/chess.com-like sets; no
diagram fonts, no hatched or book themes, no held-out design families), board 320-560
px, seen from White or Black, inside a frame of UI that the reader must find the board
in:

- GIF (`.gif`), like lichess's and chess.com's GIF export: one frame per position
  (the start position first), a last-move and check highlight, players' bars above and
  below the board, 0.5-1 s per frame and 2.5-4 s on the last, a palette of <= 128
  colours without dithering (after the first frame, unchanged pixels are transparent).
- Video (`.mp4`: libx264, yuv420p, CRF 28-32, 30 fps; `.webm`: VP9, CRF 44-48), a screen recording
  of an online game on a web page with a header, players' names, clocks that tick each
  second and a move list beside the board: each move slides over 4-8 frames (eased),
  then the position stays 10-60 frames; last-move highlight; depending on the game a
  mouse pointer that clicks or drags the player's pieces (legal-move dots, a selected
  square), arrows drawn while thinking, premoves marked on their squares and played at
  once, the king's square glowing when in check; in some games the board is flipped
  once mid-game.

OUT_DIR/labels.csv: `file,start_fen,moves,kind,theme,set,view,seconds`: `moves` the
game's UCI moves separated by spaces, `start_fen` the full FEN of the first position,
`kind` gif, mp4 or webm, `view` the side at the bottom (`white`, `black`, or for a game
flipped mid-game `white>black@N`: the board turns while the position after N plies is
shown, and stays turned), `seconds` the recording's duration.

Deterministic (seeded; one engine thread; single-threaded encoders) and resumable: an
output that exists is not rendered again (files are written under a temporary name
and renamed when complete); labels.csv is always rewritten in full. `--fixture` makes
the small committed set in testdata/recordings/ (2 GIFs, 2 MP4s, 1 WebM, 320 px).
Needs ffmpeg (with libx264 and libvpx-vp9) and Stockfish.
"""

import argparse
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.engine
import numpy as np
from PIL import Image, ImageDraw

from make_testdata import write_csv
from render import (THEME_BY_NAME, Decor, draw_arrow, draw_move_hints, draw_pointer,
                    grid_edges, render_board, scaled_piece, set_index, square_to_rc, ui_font)

STOCKFISH = "/usr/games/stockfish"
FPS = 30
# Piece sets that look like a site's screenshots (no diagram fonts, no cartoons, no
# held-out families: Alpha and Leipzig).
SCREEN_SETS = ["lichess-cburnett", "lichess-merida", "lichess-california", "lichess-cardinal",
               "lichess-chessnut", "lichess-companion", "lichess-fresca", "lichess-gioco",
               "lichess-governor", "lichess-kosal", "lichess-maestro", "lichess-pirouetti",
               "lichess-staunty", "lichess-tatiana", "lichess-libra", "lichess-dubrovny",
               "lichess-riohacha", "lichess-icpieces", "cbe-wikipedia", "cm-staunty",
               "xboard-default", "pychess-cburnett"]
SCREEN_THEMES = ["lichess-brown", "chesscom-green", "lichess-blue", "blue2", "grey", "purple",
                 "coral", "wood", "olive", "tan", "pink", "green-plain"]
HIGHLIGHTS = [(255, 255, 51, 105), (155, 199, 0, 105), (205, 210, 106, 150)]
PREMOVE = (20, 30, 85, 110)
SELECTED = (20, 85, 30, 110)
ARROW_COLOURS = [(21, 120, 27, 170), (0, 48, 136, 170), (136, 32, 32, 170), (230, 143, 0, 170)]
NAMES_A = ["quiet", "rapid", "lone", "blue", "iron", "happy", "silent", "old", "tactical", "lucky",
           "green", "brave", "sleepy", "clever", "fuzzy"]
NAMES_B = ["knight", "rook", "pawn", "bishop", "gambit", "fianchetto", "zugzwang", "castle", "tempo",
           "endgame", "patzer", "owl", "tiger", "otter", "falcon"]


# ---------------------------------------------------------------- games

def pick_move(engine, board, rng, nodes, gid, explore):
    """A move chosen among the engine's best few at `nodes`, or now and then a random one."""
    legal = list(board.legal_moves)
    if rng.random() < explore:
        return legal[int(rng.integers(len(legal)))]
    infos = engine.analyse(board, chess.engine.Limit(nodes=nodes), multipv=min(3, len(legal)), game=gid)
    moves, scores = [], []
    for info in infos:
        if "pv" not in info or not info["pv"]:
            continue
        moves.append(info["pv"][0])
        scores.append(info["score"].relative.score(mate_score=10000))
    if not moves:
        return legal[int(rng.integers(len(legal)))]
    # Softmax over centipawns (temperature 60 cp): close moves are both played.
    s = np.array(scores, np.float64)
    p = np.exp((s - s.max()) / 60.0)
    return moves[int(rng.choice(len(moves), p=p / p.sum()))]


def random_middlegame(rng):
    """A legal middlegame position reached by random play (not over, >= 16 pieces)."""
    while True:
        board = chess.Board()
        for _ in range(int(rng.integers(14, 36))):
            legal = list(board.legal_moves)
            if not legal:
                break
            board.push(legal[int(rng.integers(len(legal)))])
        if not board.is_game_over() and len(board.piece_map()) >= 16 and not board.is_check():
            return chess.Board(board.fen())


def play_game(engine, seed, plies, mate=False, odd_start=False):
    """(start FEN, [moves]) of a game of plies[0]..plies[1] plies, from `seed` alone."""
    for attempt in range(200):
        rng = np.random.default_rng([seed, attempt])
        board = random_middlegame(rng) if odd_start else chess.Board()
        start = board.fen()
        n_random = 0 if odd_start else int(rng.integers(4, 11))
        target = int(rng.integers(plies[0], plies[1] + 1))
        gid = object()  # ucinewgame: the engine's hash starts empty for every game
        if mate:  # a strong side against a weak one, played on to the end
            strong = bool(rng.random() < 0.5)
            nodes = {strong: int(rng.integers(4000, 20000)), not strong: int(rng.integers(30, 300))}
            explore = {strong: 0.0, not strong: 0.3}
        else:
            nodes = {c: int(rng.integers(100, 3000)) for c in (True, False)}
            explore = {c: float(rng.uniform(0.0, 0.12)) for c in (True, False)}
        moves = []
        while not board.is_game_over() and len(moves) < (plies[1] if mate else target):
            if len(moves) < n_random:
                legal = list(board.legal_moves)
                move = legal[int(rng.integers(len(legal)))]
            else:
                move = pick_move(engine, board, rng, nodes[board.turn], gid, explore[board.turn])
            moves.append(move)
            board.push(move)
        if len(moves) < plies[0]:
            continue
        if mate and not board.is_checkmate():
            continue
        if not mate and board.is_game_over() and not board.is_checkmate():
            continue  # stalemate or a dead draw: try another
        return start, moves
    raise RuntimeError(f"no game for seed {seed}")


def sans(start, moves):
    board = chess.Board(start)
    out = []
    for m in moves:
        out.append(board.san(m))
        board.push(m)
    return out


def result_text(start, moves):
    board = chess.Board(start)
    for m in moves:
        board.push(m)
    if board.is_checkmate():
        return ("0-1", "Checkmate. Black is victorious") if board.turn else ("1-0", "Checkmate. White is victorious")
    # Not over: the side to move resigns.
    return ("1-0", "Black resigned. White is victorious") if not board.turn else \
        ("0-1", "White resigned. Black is victorious")


def player_names(rng):
    def one():
        return (f"{NAMES_A[int(rng.integers(len(NAMES_A)))]}_{NAMES_B[int(rng.integers(len(NAMES_B)))]}"
                f"{int(rng.integers(1, 99))}", int(rng.integers(1100, 2700)))
    return {chess.WHITE: one(), chess.BLACK: one()}


# ---------------------------------------------------------------- drawing

@dataclass
class Style:
    """What one recording looks like (drawn from its seed)."""
    set_name: str
    theme: str
    size: int
    view: str
    highlight: tuple
    coords: bool
    piece_scale: float
    dark_mode: bool
    names: dict
    show_check: bool = True


def empty_fen():
    return "8/8/8/8/8/8/8/8"


def top_left(view):
    return "a8" if view == "white" else "h1"


def square_centre(sq, view, e):
    r, c = square_to_rc(sq, view)
    return (e[c] + e[c + 1]) / 2, (e[r] + e[r + 1]) / 2


class BoardPainter:
    """Draws board frames: render_board's squares, highlights and coordinates, then the
    pieces (as render_board places them), then arrows, sliding pieces and a pointer."""

    def __init__(self, style):
        self.s = style
        self.theme = THEME_BY_NAME[style.theme]
        self.e = grid_edges(style.size)
        self.bg_cache = {}
        self.rng = np.random.default_rng(0)

    def background(self, view, last_move, check, premove, selected, hints, fen):
        key = (view, last_move, check, premove, selected, hints, fen if hints else None)
        if key not in self.bg_cache:
            if len(self.bg_cache) > 256:
                self.bg_cache.clear()
            decor = Decor(coords=self.s.coords, last_move=last_move, highlight=self.s.highlight,
                          check=check if self.s.show_check else "")
            img = render_board(empty_fen(), self.s.set_name, self.theme, self.s.size, view, decor,
                               self.rng).convert("RGBA")
            if premove or selected or hints:
                overlay = Image.new("RGBA", img.size, (0, 0, 0, 0))
                od = ImageDraw.Draw(overlay)
                e = self.e
                for sq, rgba in [(q, PREMOVE) for q in premove] + ([(selected, SELECTED)] if selected else []):
                    r, c = square_to_rc(sq, view)
                    od.rectangle((e[c], e[r], e[c + 1] - 1, e[r + 1] - 1), fill=rgba)
                if hints:
                    draw_move_hints(od, e, view, fen, hints, SELECTED, 0.14)
                img.alpha_composite(overlay)
            self.bg_cache[key] = img
        return self.bg_cache[key]

    def piece(self, piece, scale=1.0):
        w = self.e[1] - self.e[0]
        px = max(4, round(w * self.s.piece_scale * scale))
        return scaled_piece(self.s.set_name, piece, px, False), px

    def draw(self, f):
        """The board picture (RGB) of frame spec `f`."""
        img = self.background(f.view, f.last_move, f.check, f.premove, f.selected, f.hints, f.fen).copy()
        e = self.e
        board = chess.Board(f.fen + " w - - 0 1")
        hidden = set(f.hidden)
        for sq, p in board.piece_map().items():
            name = chess.square_name(sq)
            if name in hidden:
                continue
            r, c = square_to_rc(name, f.view)
            w = e[c + 1] - e[c]
            im, px = self.piece(p.symbol())
            img.alpha_composite(im, (e[c] + (w - px) // 2, e[r] + (w - px) // 2))
        for a, b, rgba in f.arrows:
            img.alpha_composite(draw_arrow(self.s.size, e, a, b, rgba, f.view))
        for p, x, y, scale in f.sprites:
            im, px = self.piece(p, scale)
            img.alpha_composite(im, (round(x - px / 2), round(y - px / 2)))
        if f.pointer:
            cell = e[1] - e[0]
            draw_pointer(img, e, f.view, top_left(f.view), 0.4, f.pointer[0] / cell, f.pointer[1] / cell)
        return img.convert("RGB")


def clock_text(t):
    t = max(0, int(t))
    return f"{t // 60}:{t % 60:02d}"


def movelist_lines(start, san_list, n):
    """Move list rows ('12. Nf3  Nc6') for the first n plies."""
    board = chess.Board(start)
    num, white = board.fullmove_number, board.turn
    rows = []
    for i, s in enumerate(san_list[:n]):
        if white:
            rows.append(f"{num}. {s}")
        else:
            if not rows or i == 0:
                rows.append(f"{num}. ...")
            rows[-1] += f"  {s}"
            num += 1
        white = not white
    return rows


# ---------------------------------------------------------------- video

@dataclass(frozen=True)
class Frame:
    fen: str
    view: str
    last_move: tuple = ()
    check: str = ""
    premove: tuple = ()
    selected: str = ""
    hints: tuple = ()
    hidden: tuple = ()
    arrows: tuple = ()
    sprites: tuple = ()
    pointer: tuple = ()
    clocks: tuple = ("", "")
    active: object = None  # the colour whose clock runs
    ply: int = 0
    result: str = ""

    def board_key(self):
        return (self.fen, self.view, self.last_move, self.check, self.premove, self.selected, self.hints,
                self.hidden, self.arrows, self.sprites, self.pointer)

    def panel_key(self):
        return (self.view, self.clocks, self.active, self.ply, self.result)


def ease(t):
    return 4 * t ** 3 if t < 0.5 else 1 - (-2 * t + 2) ** 3 / 2


def check_square(board):
    return chess.square_name(board.king(board.turn)) if board.is_check() else ""


def video_schedule(start, moves, style, rng, flip_at=None, pointer=False, premoves=0.0, arrows=0.0,
                   hold=(10, 60)):
    """Frame specs of a screen recording of the game (a list of Frame)."""
    board = chess.Board(start)
    e = grid_edges(style.size)
    cell = e[1] - e[0]
    user = chess.WHITE if style.view == "white" else chess.BLACK  # the player at the bottom
    base_time, inc = [(180, 0), (180, 2), (300, 0), (300, 3), (600, 0)][int(rng.integers(5))]
    clocks = {chess.WHITE: base_time + rng.uniform(0, 0.9), chess.BLACK: base_time + rng.uniform(0, 0.9)}
    frames = []
    st = dict(fen=board.board_fen(), view=style.view, last_move=(), check="", ply=0)
    ptr = [None]
    if pointer:
        ptr[0] = (style.size * rng.uniform(0.3, 0.7), style.size * rng.uniform(0.6, 0.95))
    extra = {}

    def emit(n, **kw):
        for _ in range(n):
            if st["ply"] > 0 and not board.is_game_over() and not st.get("result"):
                clocks[board.turn] -= 1 / FPS
            f = Frame(**{**st, **extra, **kw}, pointer=tuple(round(v, 1) for v in ptr[0]) if ptr[0] else (),
                      clocks=(clock_text(clocks[chess.WHITE]), clock_text(clocks[chess.BLACK])),
                      active=None if board.is_game_over() or st.get("result") else board.turn)
            frames.append(f)

    def move_pointer(to, n, **kw):
        x0, y0 = ptr[0]
        for k in range(1, n + 1):
            t = ease(k / n)
            ptr[0] = (x0 + (to[0] - x0) * t, y0 + (to[1] - y0) * t)
            emit(1, **kw)

    def slide(move, n):
        """The moving piece(s) glide from their squares to their targets."""
        movers = [(move.from_square, move.to_square)]
        if board.is_castling(move):
            kf, kt = move.from_square, move.to_square  # the king's two squares (standard chess)
            rank = chess.square_rank(kf)
            if chess.square_file(kt) > chess.square_file(kf):
                rook_from, rook_to = chess.square(7, rank), chess.square(5, rank)
            else:
                rook_from, rook_to = chess.square(0, rank), chess.square(3, rank)
            movers.append((rook_from, rook_to))
        pieces = [board.piece_at(a).symbol() for a, _ in movers]
        hidden = tuple(chess.square_name(a) for a, _ in movers)
        for k in range(n):
            t = ease((k + 1) / (n + 1))
            sprites = []
            for p, (a, b) in zip(pieces, movers):
                xa, ya = square_centre(chess.square_name(a), st["view"], e)
                xb, yb = square_centre(chess.square_name(b), st["view"], e)
                sprites.append((p, round(xa + (xb - xa) * t, 1), round(ya + (yb - ya) * t, 1), 1.0))
            emit(1, hidden=hidden, sprites=tuple(sprites),
                 last_move=(chess.square_name(move.from_square), chess.square_name(move.to_square)))

    def drag(move):
        """The player picks the piece up with the pointer and drops it on its square."""
        a, b = chess.square_name(move.from_square), chess.square_name(move.to_square)
        piece = board.piece_at(move.from_square).symbol()
        hints = tuple(sorted({chess.square_name(m.to_square) for m in board.legal_moves
                              if m.from_square == move.from_square}))
        show_hints = rng.random() < 0.7
        move_pointer(square_centre(a, st["view"], e), int(rng.integers(5, 12)))
        pos_b = square_centre(b, st["view"], e)
        x0, y0 = ptr[0]
        n = int(rng.integers(6, 13))
        scale = 1.0 if rng.random() < 0.6 else 1.15
        for k in range(1, n + 1):
            t = ease(k / n)
            ptr[0] = (x0 + (pos_b[0] - x0) * t + rng.uniform(-2, 2), y0 + (pos_b[1] - y0) * t + rng.uniform(-2, 2))
            emit(1, hidden=(a,), selected=a, hints=hints if show_hints else (),
                 sprites=((piece, round(ptr[0][0], 1), round(ptr[0][1], 1), scale),))

    def click(move):
        """The player clicks the piece, then its square; the piece slides there."""
        a, b = chess.square_name(move.from_square), chess.square_name(move.to_square)
        hints = tuple(sorted({chess.square_name(m.to_square) for m in board.legal_moves
                              if m.from_square == move.from_square}))
        move_pointer(square_centre(a, st["view"], e), int(rng.integers(5, 12)))
        emit(int(rng.integers(2, 8)), selected=a, hints=hints)
        cx, cy = square_centre(b, st["view"], e)
        move_pointer((cx + rng.uniform(-0.3, 0.3) * cell, cy + rng.uniform(-0.3, 0.3) * cell),
                     int(rng.integers(4, 10)), selected=a, hints=hints)

    def push(move):
        board.push(move)
        clocks[not board.turn] += inc
        st.update(fen=board.board_fen(), last_move=(chess.square_name(move.from_square),
                                                     chess.square_name(move.to_square)),
                  check=check_square(board), ply=st["ply"] + 1)

    emit(int(rng.integers(30, 61)))
    premove_for = -1
    i = 0
    while i < len(moves):
        move = moves[i]
        mover = board.turn
        if pointer and mover == user and ptr[0] and premove_for != i:
            if rng.random() < 0.5:
                drag(move)
                push(move)
            else:
                click(move)
                slide(move, int(rng.integers(4, 9)))
                push(move)
        else:
            slide(move, 1 if premove_for == i else int(rng.integers(4, 9)))
            push(move)
        extra.clear()
        if flip_at is not None and st["ply"] == flip_at:
            emit(int(rng.integers(5, 15)))
            st["view"] = "black" if st["view"] == "white" else "white"
        i += 1
        if i == len(moves):
            break
        think = int(rng.integers(hold[0], hold[1] + 1))
        # A premove: while the opponent thinks, the player's next move is marked on its squares.
        if board.turn != user and i + 1 < len(moves) and rng.random() < premoves:
            nxt = moves[i + 1]
            a = think // 3
            emit(a)
            extra["premove"] = (chess.square_name(nxt.from_square), chess.square_name(nxt.to_square))
            emit(think - a)
            premove_for = i + 1
            continue
        if premove_for == i:  # the premove is played at once
            extra.pop("premove", None)
            emit(1)
            continue
        if board.turn == user and rng.random() < arrows:
            a = think // 4
            emit(a)
            legal = list(board.legal_moves)
            m = legal[int(rng.integers(len(legal)))]
            extra["arrows"] = ((chess.square_name(m.from_square), chess.square_name(m.to_square),
                                ARROW_COLOURS[int(rng.integers(len(ARROW_COLOURS)))]),)
            emit(think - a)
            continue
        if ptr[0] and rng.random() < 0.5:  # the pointer wanders while waiting
            a = think // 2
            emit(a)
            tx = min(style.size - 4, max(4, ptr[0][0] + rng.uniform(-1.5, 1.5) * cell))
            ty = min(style.size - 4, max(4, ptr[0][1] + rng.uniform(-1.5, 1.5) * cell))
            move_pointer((tx, ty), max(1, (think - a) // 2))
            emit(think - a - max(1, (think - a) // 2))
            continue
        emit(think)
    extra.clear()
    st["result"] = "end"
    emit(int(rng.integers(60, 91)))
    return frames


class VideoPage:
    """An online game's page: header, the board, a side panel with the players' names,
    clocks and the move list."""

    def __init__(self, style, start, moves, rng):
        self.s = style
        self.start, self.sans = start, sans(start, moves)
        self.result = result_text(start, moves)
        size = style.size
        self.header = 40
        self.margin = int(rng.integers(12, 40))
        self.left_w = int(rng.integers(160, 260)) if rng.random() < 0.5 else 0
        self.panel_w = int(rng.integers(220, 300))
        self.panel_gap = int(rng.integers(10, 30))
        w = self.margin * 2 + self.left_w + size + self.panel_gap + self.panel_w + (self.margin if self.left_w else 0)
        h = self.header + self.margin * 2 + size
        self.w, self.h = w + w % 2, h + h % 2
        self.board_xy = (self.margin + (self.left_w + self.margin if self.left_w else 0), self.header + self.margin)
        self.panel_xy = (self.board_xy[0] + size + self.panel_gap, self.board_xy[1])
        dark = style.dark_mode
        self.bg = (22, 21, 18) if dark else tuple(int(v) for v in rng.integers(236, 250, 3))
        self.fg = (186, 186, 186) if dark else (60, 60, 60)
        self.box = (38, 36, 33) if dark else (255, 255, 255)
        self.accent = tuple(int(v) for v in rng.integers(40, 200, 3))
        self.base = self.make_base(rng)
        self.panel_cache = {}

    def make_base(self, rng):
        page = Image.new("RGB", (self.w, self.h), self.bg)
        d = ImageDraw.Draw(page)
        d.rectangle((0, 0, self.w, self.header), fill=(38, 36, 33) if self.s.dark_mode else (60, 60, 70))
        d.text((14, 11), ["lichess.org", "chess.com", "chess arena", "playchess"][int(rng.integers(4))],
               font=ui_font(16, True), fill=(230, 230, 230))
        for i, label in enumerate(["PLAY", "PUZZLES", "LEARN", "WATCH"]):
            d.text((150 + i * 80, 13), label, font=ui_font(12), fill=(200, 200, 200))
        if self.left_w:
            x0, y0 = self.margin, self.header + self.margin
            d.rectangle((x0, y0, x0 + self.left_w, y0 + self.s.size), fill=self.box)
            d.text((x0 + 8, y0 + 8), "Chat room", font=ui_font(13, True), fill=self.fg)
            lines = ["Good luck!", "hi", "have fun", "gg", "nice opening"]
            for k in range(int(rng.integers(1, 5))):
                d.text((x0 + 8, y0 + 32 + 18 * k), f"{self.s.names[bool(k % 2)][0][:12]}: {lines[k]}",
                       font=ui_font(11), fill=self.fg)
        return page

    def panel(self, f):
        key = f.panel_key()
        if key in self.panel_cache:
            return self.panel_cache[key]
        if len(self.panel_cache) > 64:
            self.panel_cache.clear()
        w, h = self.panel_w, self.s.size
        img = Image.new("RGB", (w, h), self.bg)
        d = ImageDraw.Draw(img)
        top = chess.BLACK if f.view == "white" else chess.WHITE
        clock_h = 44
        for colour, y in ((top, 0), (not top, h - clock_h)):
            active = f.active == colour
            d.rectangle((0, y, 120, y + clock_h - 4),
                        fill=(self.accent if active else ((60, 58, 55) if self.s.dark_mode else (220, 220, 220))))
            d.text((10, y + 6), f.clocks[0 if colour else 1], font=ui_font(26, True),
                   fill=(255, 255, 255) if active else self.fg)
            name, elo = self.s.names[colour]
            ny = y + clock_h + 4 if colour == top else y - 26
            d.ellipse((0, ny + 4, 10, ny + 14), fill=(100, 180, 90))
            d.text((16, ny), f"{name} ({elo})", font=ui_font(14), fill=self.fg)
        box = (0, clock_h + 30, w - 1, h - clock_h - 32)
        d.rectangle(box, fill=self.box)
        rows = movelist_lines(self.start, self.sans, f.ply)
        line_h = 20
        fit = max(1, (box[3] - box[1] - 10) // line_h - (2 if f.result else 0))
        for k, row in enumerate(rows[-fit:]):
            d.text((box[0] + 10, box[1] + 6 + k * line_h), row, font=ui_font(13), fill=self.fg)
        if f.result:
            y = box[1] + 6 + min(len(rows), fit) * line_h
            d.text((box[0] + 10, y), self.result[0], font=ui_font(12, True), fill=self.fg)
            d.text((box[0] + 10, y + line_h), self.result[1], font=ui_font(11), fill=self.fg)
        self.panel_cache[key] = img
        return img


def encode_video(path, frames, style, page, painter, kind, crf):
    """Pipe the frames as raw RGB to ffmpeg; writes `path` (through a temporary name)."""
    tmp = path.with_name(path.name + ".part")
    if kind == "mp4":
        codec = ["-c:v", "libx264", "-preset", "medium", "-crf", str(crf), "-threads", "1",
                 "-movflags", "+faststart", "-f", "mp4"]
    else:
        codec = ["-c:v", "libvpx-vp9", "-crf", str(crf), "-b:v", "0", "-g", "300", "-deadline", "good", "-cpu-used", "4",
                 "-row-mt", "0", "-threads", "1", "-f", "webm"]
    cmd = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24",
           "-s", f"{page.w}x{page.h}", "-framerate", str(FPS), "-i", "-", *codec, "-pix_fmt", "yuv420p",
           "-fflags", "+bitexact", "-flags:v", "+bitexact", "-map_metadata", "-1", str(tmp)]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE)
    last_key, last_bytes = None, None
    board_key, board_img = None, None
    for f in frames:
        key = (f.board_key(), f.panel_key())
        if key != last_key:
            if f.board_key() != board_key:
                board_key, board_img = f.board_key(), painter.draw(f)
            img = page.base.copy()
            img.paste(board_img, page.board_xy)
            img.paste(page.panel(f), page.panel_xy)
            last_key, last_bytes = key, img.tobytes()
        proc.stdin.write(last_bytes)
    proc.stdin.close()
    if proc.wait() != 0:
        raise RuntimeError(f"ffmpeg failed on {path}")
    tmp.rename(path)


# ---------------------------------------------------------------- GIF

def gif_frames(start, moves, style, rng, layout):
    """One picture per position (the start first), in a lichess- or chess.com-like
    GIF export layout."""
    board = chess.Board(start)
    theme = THEME_BY_NAME[style.theme]
    size = style.size
    top = chess.BLACK if style.view == "white" else chess.WHITE
    if layout == "lichess":
        bar, pad, bg, fg = max(24, size // 14), 0, (38, 36, 33), (200, 200, 200)
    else:
        bar, pad, bg, fg = max(30, size // 11), max(6, size // 40), (49, 46, 43), (230, 230, 230)
    w, h = size + 2 * pad, size + 2 * bar + 2 * pad
    base = Image.new("RGB", (w, h), bg)
    d = ImageDraw.Draw(base)
    font = ui_font(max(11, bar // 2), True)
    for colour, y in ((top, pad), (not top, h - bar - pad)):
        name, elo = style.names[colour]
        x = pad + 6
        if layout != "lichess":
            d.rectangle((x, y + 3, x + bar - 6, y + bar - 3), fill=(120, 120, 120))
            x += bar + 2
        d.text((x, y + bar // 2), f"{name} ({elo})", font=font, fill=fg, anchor="lm")
    pictures = []
    positions = [(board.board_fen(), (), "")]
    for m in moves:
        board.push(m)
        positions.append((board.board_fen(), (chess.square_name(m.from_square), chess.square_name(m.to_square)),
                          check_square(board)))
    for fen, last, check in positions:
        decor = Decor(coords=style.coords, last_move=last, highlight=style.highlight,
                      check=check if style.show_check else "", piece_scale=style.piece_scale)
        img = base.copy()
        img.paste(render_board(fen, style.set_name, theme, size, style.view, decor), (pad, bar + pad))
        pictures.append(img)
    return pictures


def write_gif(path, pictures, durations, colours):
    """Palette frames (one shared palette of `colours` - 1 colours, no dithering) saved as
    an animated GIF; after the first frame, pixels that did not change are transparent
    (the last palette index), as GIF optimisers write them."""
    sample = Image.new("RGB", (pictures[0].width, pictures[0].height * 2))
    sample.paste(pictures[0], (0, 0))
    sample.paste(pictures[-1], (0, pictures[0].height))
    palette = sample.quantize(colours - 1, method=Image.Quantize.MEDIANCUT)
    indices = [np.asarray(p.quantize(palette=palette, dither=Image.Dither.NONE)) for p in pictures]
    clear = colours - 1
    rgb = palette.getpalette()[:3 * clear] + [255, 0, 255]
    frames = []
    for k, a in enumerate(indices):
        b = a.copy()
        if k:
            b[a == indices[k - 1]] = clear
        f = Image.fromarray(b.astype(np.uint8), "P")
        f.putpalette(rgb)
        frames.append(f)
    tmp = path.with_name(path.name + ".part")
    frames[0].save(tmp, format="GIF", save_all=True, append_images=frames[1:], duration=durations,
                   loop=0, optimize=False, disposal=1, transparency=clear)
    tmp.rename(path)


# ---------------------------------------------------------------- plan

@dataclass
class Job:
    file: str
    kind: str  # gif, mp4, webm
    seed: int
    plies: tuple
    mate: bool = False
    odd_start: bool = False
    view: str = ""  # "" = random
    size: tuple = (320, 561)
    flip: bool = False
    layout: str = ""
    hold: tuple = (10, 60)
    extras: dict = field(default_factory=dict)
    look: tuple = ()  # (theme, piece set) instead of random ones


def make_style(job, rng, sets):
    names = [n for n in SCREEN_SETS if n in sets]
    return Style(set_name=names[int(rng.integers(len(names)))],
                 theme=SCREEN_THEMES[int(rng.integers(len(SCREEN_THEMES)))],
                 size=int(rng.integers(*job.size)) // 8 * 8,
                 view=job.view or ("white" if rng.random() < 0.5 else "black"),
                 highlight=HIGHLIGHTS[int(rng.integers(len(HIGHLIGHTS)))],
                 coords=bool(rng.random() < 0.6),
                 piece_scale=float(rng.choice([0.85, 0.9, 0.95, 1.0])),
                 dark_mode=bool(rng.random() < 0.5),
                 names=player_names(rng),
                 show_check=bool(rng.random() < 0.8))


def eval_jobs(gifs, mp4s, webms, seed):
    jobs = []
    kinds = ["gif"] * gifs + ["mp4"] * mp4s + ["webm"] * webms
    for i, kind in enumerate(kinds):
        rng = np.random.default_rng([seed, i, 1])
        jobs.append(Job(file=f"{i:03d}.{kind}", kind=kind, seed=seed * 1000 + i, plies=(20, 80),
                        mate=bool(rng.random() < 0.25), odd_start=bool(rng.random() < 0.12),
                        flip=kind != "gif" and bool(rng.random() < 0.25)))
    return jobs


def fixture_jobs(seed):
    small = (320, 321)
    return [
        Job("black.gif", "gif", seed * 1000 + 901, (20, 30), view="black", size=small, layout="lichess",
            look=("lichess-brown", "lichess-cburnett")),
        Job("mate.gif", "gif", seed * 1000 + 902, (16, 30), mate=True, view="white", size=small, layout="chesscom",
            look=("chesscom-green", "cm-staunty")),
        Job("flip.mp4", "mp4", seed * 1000 + 903, (20, 26), view="white", size=small, flip=True, hold=(10, 30),
            extras=dict(pointer=True, premoves=0.3, arrows=0.2), look=("lichess-blue", "lichess-merida")),
        Job("fen.mp4", "mp4", seed * 1000 + 904, (16, 24), odd_start=True, view="black", size=small, hold=(10, 30),
            extras=dict(pointer=False, premoves=0.3, arrows=0.2)),
        Job("short.webm", "webm", seed * 1000 + 905, (16, 20), view="white", size=small, hold=(10, 25),
            extras=dict(pointer=True, premoves=0.0, arrows=0.2), look=("wood", "lichess-california")),
    ]


def run_job(job, engine, out, sets):
    """Make one recording (unless it exists); returns its labels row."""
    start, moves = play_game(engine, job.seed, job.plies, job.mate, job.odd_start)
    rng = np.random.default_rng([job.seed, 7])
    style = make_style(job, rng, sets)
    if job.look:
        style.theme, style.set_name = job.look
    path = out / job.file
    if job.kind == "gif":
        layout = job.layout or ("lichess" if rng.random() < 0.5 else "chesscom")
        delay = int(rng.integers(5, 11)) * 100
        durations = [delay] * len(moves) + [int(rng.integers(25, 41)) * 100]
        seconds = sum(durations) / 1000
        if not path.exists():
            write_gif(path, gif_frames(start, moves, style, rng, layout), durations,
                      int(rng.choice([64, 96, 128])))
        view = style.view
    else:
        ex = job.extras
        pointer = ex.get("pointer", bool(rng.random() < 0.5))
        premoves = ex.get("premoves", float(rng.choice([0.0, 0.0, 0.2, 0.4])))
        arrows = ex.get("arrows", float(rng.choice([0.0, 0.1, 0.25])))
        flip_at = int(rng.integers(len(moves) * 3 // 10, len(moves) * 7 // 10 + 1)) if job.flip else None
        crf = int(rng.integers(28, 33)) if job.kind == "mp4" else int(rng.integers(44, 49))
        frames = video_schedule(start, moves, style, rng, flip_at, pointer, premoves, arrows, job.hold)
        seconds = round(len(frames) / FPS, 3)
        if not path.exists():
            page = VideoPage(style, start, moves, rng)
            encode_video(path, frames, style, page, BoardPainter(style), job.kind, crf)
        other = "black" if style.view == "white" else "white"
        view = f"{style.view}>{other}@{flip_at}" if flip_at is not None else style.view
    return (job.file, start, " ".join(m.uci() for m in moves), job.kind, style.theme, style.set_name, view,
            f"{seconds:g}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--gifs", type=int, default=20)
    ap.add_argument("--mp4s", type=int, default=20)
    ap.add_argument("--webms", type=int, default=0)
    ap.add_argument("--seed", type=int, default=52)
    ap.add_argument("--fixture", action="store_true",
                    help="the committed fixture set (2 GIFs, 2 MP4s, 1 WebM; counts ignored)")
    ap.add_argument("--only", default="", help="make only this file (others still labelled)")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    sets = {s["name"] for s in set_index()}
    jobs = fixture_jobs(args.seed) if args.fixture else eval_jobs(args.gifs, args.mp4s, args.webms, args.seed)
    engine = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    engine.configure({"Threads": 1, "Hash": 16})
    rows = []
    t_all = time.time()
    try:
        for job in jobs:
            if args.only and job.file != args.only and not (args.out / job.file).exists():
                continue
            t0 = time.time()
            existed = (args.out / job.file).exists()
            rows.append(run_job(job, engine, args.out, sets))
            size = (args.out / job.file).stat().st_size
            print(f"{job.file}: {len(rows[-1][2].split())} plies, {rows[-1][7]} s, {size / 1024:.0f} KiB"
                  f"{' (exists)' if existed else ''}, {time.time() - t0:.1f} s", flush=True)
    finally:
        engine.quit()
    write_csv(args.out / "labels.csv", ["file", "start_fen", "moves", "kind", "theme", "set", "view", "seconds"],
              rows)
    print(f"{len(rows)} recordings in {args.out}, {time.time() - t_all:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()

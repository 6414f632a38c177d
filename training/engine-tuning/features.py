"""The evaluation's terms as counts, mirroring src/analysis/engine/eval.rs.

`features(board)` returns, for one position, the phase (0 to 24), the
side-to-move sign (+1 White, -1 Black), a dict {pair index: count},
White's counts minus Black's, and the endgame scale for each sign of the
endgame score (out of 64, see `endgame_scale`). A pair index `j` names the
weight pair at parameter-vector positions `2j` (middlegame) and `2j + 1`
(endgame), as laid out by weights.py. The evaluation from White's point of
view is then

    trunc((mg * phase + trunc(eg * scale / 64) * (24 - phase)) / 24) + sign * TEMPO

with mg = sum(count_j * w[2j]), eg = sum(count_j * w[2j + 1]) and scale the
scale for the side eg favours (the one for Black when eg is 0). Any change
to eval.rs must be made here too; `tune.py --check` compares the two.
"""
import chess

import weights

PHASE_WEIGHT = [0, 1, 1, 2, 4, 0]
MAX_PHASE = 24
KING_ATTACK_WEIGHT = [0, 2, 2, 3, 5, 0]
SAFE_CHECK_WEIGHT = [0, 6, 4, 7, 6, 0]
WEAK_ZONE_WEIGHT = 2
OFFSET = {name: at // 2 for name, at in weights.offsets()[0].items()}
MOBILITY = {
    chess.KNIGHT: "MOBILITY_KNIGHT",
    chess.BISHOP: "MOBILITY_BISHOP",
    chess.ROOK: "MOBILITY_ROOK",
    chess.QUEEN: "MOBILITY_QUEEN",
}
KING_DANGER_MAX = dict(weights.SPEC)["KING_DANGER"][0] - 1
FILES = [chess.BB_FILES[f] for f in range(8)]
ADJACENT = [(FILES[f - 1] if f > 0 else 0) | (FILES[f + 1] if f < 7 else 0) for f in range(8)]
ALL = (1 << 64) - 1


def pawn_attacks(pawns, color):
    not_a, not_h = ~chess.BB_FILE_A & ALL, ~chess.BB_FILE_H & ALL
    if color == chess.WHITE:
        return (((pawns & not_a) << 7) | ((pawns & not_h) << 9)) & ALL
    return ((pawns & not_a) >> 9) | ((pawns & not_h) >> 7)


def ahead_of(sq, color):
    rank = chess.square_rank(sq)
    if color == chess.WHITE:
        return (ALL << (8 * (rank + 1))) & ALL
    return (1 << (8 * rank)) - 1


def stop_square(sq, color):
    """The square in front of a pawn of `color` on `sq`."""
    return sq + 8 if color == chess.WHITE else sq - 8


def relative_rank(sq, color):
    rank = chess.square_rank(sq)
    return rank if color == chess.WHITE else 7 - rank


def attacks(board, color):
    """(all squares `color` attacks, by pawns, by knights and bishops, by rooks)."""
    by = {pt: 0 for pt in chess.PIECE_TYPES}
    for pt in chess.PIECE_TYPES:
        for sq in chess.scan_forward(board.pieces_mask(pt, color)):
            by[pt] |= board.attacks_mask(sq)
    everything = 0
    for bb in by.values():
        everything |= bb
    return everything, by[chess.PAWN], by[chess.KNIGHT] | by[chess.BISHOP], by[chess.ROOK]


def safe_check_units(board, us):
    """Attack units of the safe checks `us` has against the enemy king (eval.rs's king_danger)."""
    them = not us
    king = board.king(them)
    occ = board.occupied
    theirs = attacks(board, them)[0]
    safe = ~(theirs | board.occupied_co[us]) & ALL
    diagonal = chess.BB_DIAG_ATTACKS[king][chess.BB_DIAG_MASKS[king] & occ]
    straight = (chess.BB_RANK_ATTACKS[king][chess.BB_RANK_MASKS[king] & occ]
                | chess.BB_FILE_ATTACKS[king][chess.BB_FILE_MASKS[king] & occ])
    units = 0
    for pt, squares in ((chess.KNIGHT, chess.BB_KNIGHT_ATTACKS[king]), (chess.BISHOP, diagonal),
                        (chess.ROOK, straight), (chess.QUEEN, diagonal | straight)):
        reach = 0
        for sq in chess.scan_forward(board.pieces_mask(pt, us)):
            reach |= board.attacks_mask(sq)
        if squares & reach & safe:
            units += SAFE_CHECK_WEIGHT[pt - 1]
    return units


def weak_zone_units(board, us):
    """Attack units of the squares next to the enemy king that `us` attacks and only its king or queen defend."""
    _, pawns, minors, rooks = attacks(board, not us)
    weak = chess.BB_KING_ATTACKS[board.king(not us)] & attacks(board, us)[0] & ~(pawns | minors | rooks)
    return WEAK_ZONE_WEIGHT * chess.popcount(weak)


def threats(board, us, add):
    """Calls add for the pieces of the other colour that `us` threatens."""
    them = not us
    ours, pawns, minors, rooks = attacks(board, us)
    theirs = attacks(board, them)[0]
    pieces = board.occupied_co[them] & ~board.pieces_mask(chess.PAWN, them) & ~board.pieces_mask(chess.KING, them)
    majors = board.pieces_mask(chess.ROOK, them) | board.pieces_mask(chess.QUEEN, them)
    for name, n in (("THREAT_BY_PAWN", pawns & pieces), ("THREAT_BY_MINOR", minors & majors),
                    ("THREAT_BY_ROOK", rooks & board.pieces_mask(chess.QUEEN, them)),
                    ("HANGING", pieces & ours & ~theirs & ~pawns)):
        if n:
            add(OFFSET[name], chess.popcount(n))


PASSER_WEIGHT = [0, 0, 0, 1, 3, 5, 7, 0]


def passers(board, us, add):
    """Calls add for the passed-pawn terms of `us` (eval.rs's passers)."""
    them = not us
    our_pawns = board.pieces_mask(chess.PAWN, us)
    their_pawns = board.pieces_mask(chess.PAWN, them)
    our_king, their_king = board.king(us), board.king(them)
    blockers = board.occupied_co[them] | attacks(board, them)[0]
    pawn_ending = board.occupied_co[them] == their_pawns | chess.BB_SQUARES[their_king]
    for sq in passed_pawns(our_pawns, their_pawns, us):
        rank = relative_rank(sq, us)
        w = PASSER_WEIGHT[rank]
        path = FILES[chess.square_file(sq)] & ahead_of(sq, us)
        if w:
            stop = stop_square(sq, us)
            add(OFFSET["PASSER_KING_THEIRS"], w * min(chess.square_distance(their_king, stop), 5))
            add(OFFSET["PASSER_KING_OURS"], w * min(chess.square_distance(our_king, stop), 5))
            if not board.occupied & chess.BB_SQUARES[stop]:
                if not path & blockers:
                    add(OFFSET["PASSER_FREE"], w)
                elif not blockers & chess.BB_SQUARES[stop]:
                    add(OFFSET["PASSER_SAFE_STOP"], w)
        if pawn_ending:
            queening = chess.square(chess.square_file(sq), 7 if us == chess.WHITE else 0)
            moves = 7 - max(rank, 2)
            tempo = 1 if board.turn == them else 0
            if not path & board.occupied_co[us] and chess.square_distance(their_king, queening) - tempo > moves:
                add(OFFSET["UNSTOPPABLE"], 1)


def side(board, us, add):
    """Calls add(pair_index, n) for every term of colour `us`."""
    threats(board, us, add)
    passers(board, us, add)
    them = not us
    ours = board.occupied_co[us]
    our_pawns = board.pieces_mask(chess.PAWN, us)
    their_pawns = board.pieces_mask(chess.PAWN, them)
    safe = ~(ours | pawn_attacks(their_pawns, them)) & ALL
    their_king = board.king(them)
    king_zone = chess.BB_KING_ATTACKS[their_king] | chess.BB_SQUARES[their_king]
    units = attackers = 0
    for piece_type in chess.PIECE_TYPES:
        p = piece_type - 1
        for sq in chess.scan_forward(board.pieces_mask(piece_type, us)):
            add(OFFSET["PIECE_VALUE"] + p, 1)
            add(OFFSET["PST"] + 64 * p + (sq ^ 56 if us == chess.WHITE else sq), 1)
            if piece_type not in MOBILITY:
                continue
            attacks = board.attacks_mask(sq)
            add(OFFSET[MOBILITY[piece_type]] + chess.popcount(attacks & safe), 1)
            hits = chess.popcount(attacks & king_zone)
            if hits:
                attackers += 1
                units += KING_ATTACK_WEIGHT[p] * hits
    if attackers >= 2:
        units += safe_check_units(board, us) + weak_zone_units(board, us)
        if not board.pieces_mask(chess.QUEEN, us):
            units //= 2
        add(OFFSET["KING_DANGER"] + min(units, KING_DANGER_MAX), 1)
    if chess.popcount(board.pieces_mask(chess.BISHOP, us)) >= 2:
        add(OFFSET["BISHOP_PAIR"], 1)
    outpost_squares = outposts(our_pawns, their_pawns, us)
    add(OFFSET["OUTPOST_KNIGHT"], chess.popcount(board.pieces_mask(chess.KNIGHT, us) & outpost_squares))
    add(OFFSET["OUTPOST_BISHOP"], chess.popcount(board.pieces_mask(chess.BISHOP, us) & outpost_squares))
    defended = pawn_attacks(our_pawns, us)
    their_guard = pawn_attacks(their_pawns, them)
    for sq in chess.scan_forward(our_pawns):
        f = chess.square_file(sq)
        ahead = ahead_of(sq, us)
        neighbours = our_pawns & ADJACENT[f]
        if not neighbours:
            add(OFFSET["ISOLATED"], 1)
        elif defended & chess.BB_SQUARES[sq] or neighbours & chess.BB_RANKS[chess.square_rank(sq)]:
            add(OFFSET["CONNECTED"] + relative_rank(sq, us), 1)
        elif not neighbours & ~ahead & ALL:
            stop = stop_square(sq, us)
            if their_guard & chess.BB_SQUARES[stop]:
                add(OFFSET["BACKWARD"], 1)
        if our_pawns & FILES[f] & ahead:
            add(OFFSET["DOUBLED"], 1)
        if not their_pawns & (FILES[f] | ADJACENT[f]) & ahead:
            add(OFFSET["PASSED"] + relative_rank(sq, us), 1)
    for sq in chess.scan_forward(board.pieces_mask(chess.ROOK, us)):
        file = FILES[chess.square_file(sq)]
        if not file & our_pawns:
            add(OFFSET["ROOK_SEMI_OPEN"] if file & their_pawns else OFFSET["ROOK_OPEN"], 1)
    missing = missing_shield(board.king(us), our_pawns, us)
    if missing:
        add(OFFSET["SHIELD_MISSING"], missing)


def outposts(ours, theirs, us):
    reachable = 0
    for sq in chess.scan_forward(theirs):
        reachable |= ADJACENT[chess.square_file(sq)] & ahead_of(sq, not us)
    ranks = 0
    for r in (3, 4, 5):
        ranks |= chess.BB_RANKS[r if us == chess.WHITE else 7 - r]
    return ranks & pawn_attacks(ours, us) & ~reachable & ALL


def missing_shield(king, pawns, us):
    if relative_rank(king, us) > 1:
        return 0
    rank = chess.square_rank(king)
    step = 1 if us == chess.WHITE else -1
    shield = 0
    for r in (rank + step, rank + 2 * step):
        if 0 <= r < 8:
            shield |= chess.BB_RANKS[r]
    f = chess.square_file(king)
    return sum(1 for g in (f - 1, f, f + 1) if 0 <= g < 8 and not pawns & shield & FILES[g])


SCALE_NORMAL = 64
PIECE_MATERIAL = {chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
DARK = 0xAA55AA55AA55AA55


def piece_material(board, color):
    return sum(v * chess.popcount(board.pieces_mask(pt, color)) for pt, v in PIECE_MATERIAL.items())


def passed_pawns(ours, theirs, us):
    return [sq for sq in chess.scan_forward(ours)
            if not theirs & (FILES[chess.square_file(sq)] | ADJACENT[chess.square_file(sq)]) & ahead_of(sq, us)]


def endgame_scale(board, strong):
    """Share of the endgame score kept for the side `strong`, out of 64 (eval.rs's endgame_scale)."""
    weak = not strong
    strong_pawns = board.pieces_mask(chess.PAWN, strong)
    ours, theirs = piece_material(board, strong), piece_material(board, weak)
    if not strong_pawns and ours - theirs <= 3:
        return 0 if ours < 5 else 4 if theirs <= 3 else 14
    strong_bishops = board.pieces_mask(chess.BISHOP, strong)
    weak_bishops = board.pieces_mask(chess.BISHOP, weak)
    if (chess.popcount(strong_bishops) == 1 and chess.popcount(weak_bishops) == 1
            and (not strong_bishops & DARK) != (not weak_bishops & DARK)):
        if ours == 3 and theirs == 3:
            their_pawns = board.pieces_mask(chess.PAWN, weak)
            return 18 + 4 * len(passed_pawns(strong_pawns, their_pawns, strong))
        return 22 + 3 * chess.popcount(board.occupied_co[strong])
    if ours - theirs >= 5:
        return SCALE_NORMAL
    return min(SCALE_NORMAL, 36 + 7 * chess.popcount(strong_pawns))


def trunc_div(a, b):
    return abs(a) // b * (1 if a >= 0 else -1)


def features(board):
    counts = {}

    def adder(sign):
        def add(j, n):
            counts[j] = counts.get(j, 0) + sign * n

        return add

    side(board, chess.WHITE, adder(1))
    side(board, chess.BLACK, adder(-1))
    phase = sum(PHASE_WEIGHT[pt - 1] * chess.popcount(board.pieces_mask(pt, c)) for pt in chess.PIECE_TYPES for c in chess.COLORS)
    sign = 1 if board.turn == chess.WHITE else -1
    scale = {1: endgame_scale(board, chess.WHITE), -1: endgame_scale(board, chess.BLACK)}
    return min(phase, MAX_PHASE), sign, {j: n for j, n in counts.items() if n}, scale


def evaluate(board, params):
    """The engine's integer evaluation from the side to move's point of view."""
    phase, sign, counts, scale = features(board)
    mg = sum(n * int(params[2 * j]) for j, n in counts.items())
    eg = sum(n * int(params[2 * j + 1]) for j, n in counts.items())
    eg = trunc_div(eg * scale[1 if eg > 0 else -1], SCALE_NORMAL)
    score = trunc_div(mg * phase + eg * (MAX_PHASE - phase), MAX_PHASE)
    return sign * score + int(params[-1])

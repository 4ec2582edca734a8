#!/usr/bin/env python3
"""Independent reference data for the che-tablebase tests, computed with python-chess.

Run once from this directory (python-chess 1.11.2; about eight minutes):

    python3 gen_reference.py

It writes two files that the Rust tests read:

* reference_counts.txt -- for KQK, KRK and KPK, the number of legal positions (every position on
  the full board, no symmetry reduction, the strong side White) with each distance to mate in
  plies, per side to move, and the number of draws. Line format: `MATERIAL SIDE VALUE COUNT` with
  SIDE `w`/`b` and VALUE a ply count or `draw`.
* samples.txt -- positions with their value for the side to move, `FEN;VALUE`: `W<plies>` (the
  side to move mates in that many plies), `L<plies>` (is mated in that many plies), `D` (draw), or
  for KBNK `>N` (no forced mate within N plies either way: a draw or a longer mate). About a third
  of the positions have the colours swapped (python-chess `Board.mirror`), so the strong side is
  Black.

Method, chosen to share nothing with the Rust generator but the rules of chess:

* KQK, KRK, KPK: every placement is set up on a python-chess board; python-chess decides legality
  (`Board.status`) and generates the legal moves; the positions after each move form an explicit
  graph, solved by retrograde analysis with move *counters* (exact here, since no symmetry folds
  the graph). A capture or an under-promotion to bishop or knight is confirmed a draw by
  python-chess's `is_insufficient_material`; a promotion to queen or rook takes the distance of the
  KQK or KRK position reached, from the tables this script computed first.
* KBNK (too big for Python): random positions, and positions near mate (checkmates found by
  sampling, then positions one and two plies earlier made by moving a man back), all labelled by
  an exhaustive python-chess minimax limited to 3 plies (strong side to move) or 2 (lone king to
  move), which gives the exact distance when mate comes within the limit, and a draw when the side
  to move is stalemated or can capture into insufficient material.
"""

import random
from collections import defaultdict

import chess

SEED = 20250611
STRONG = {
    "KQK": [chess.QUEEN],
    "KRK": [chess.ROOK],
    "KPK": [chess.PAWN],
}
DRAW = "draw"


def legal_board(squares, kinds, white_to_move):
    """A python-chess board for strong king, lone king and men on `squares`, or None if illegal."""
    wk, bk, men = squares[0], squares[1], squares[2:]
    if len(set(squares)) != len(squares):
        return None
    board = chess.Board(None)
    board.set_piece_at(wk, chess.Piece(chess.KING, chess.WHITE))
    board.set_piece_at(bk, chess.Piece(chess.KING, chess.BLACK))
    for sq, kind in zip(men, kinds):
        board.set_piece_at(sq, chess.Piece(kind, chess.WHITE))
    board.turn = chess.WHITE if white_to_move else chess.BLACK
    # Every status problem makes the position illegal, except python-chess's "impossible check"
    # heuristic about how a check could have arisen, which the tables do not model.
    if board.status() & ~chess.STATUS_IMPOSSIBLE_CHECK != chess.STATUS_VALID:
        return None
    return board


def key_of(board, kinds):
    """The (strong king, lone king, men..., white to move) tuple of a board of this ending."""
    men = []
    for kind in kinds:
        squares = list(board.pieces(kind, chess.WHITE))
        if len(squares) != 1:
            return None
        men.append(squares[0])
    return (board.king(chess.WHITE), board.king(chess.BLACK), *men, board.turn == chess.WHITE)


def solve(material, promoted):
    """Distance to mate of every legal position: {key: ('W'|'L', plies) or DRAW}."""
    kinds = STRONG[material]
    positions = []
    index = {}
    for wk in range(64):
        for bk in range(64):
            for man in range(64):
                for white_to_move in (True, False):
                    squares = (wk, bk, man)
                    board = legal_board(squares, kinds, white_to_move)
                    if board is None:
                        continue
                    index[(*squares, white_to_move)] = len(positions)
                    positions.append(board)
    n = len(positions)
    parents = [[] for _ in range(n)]
    remaining = [0] * n
    value = [None] * n
    seeds = defaultdict(list)  # plies -> positions won by a promotion in that many plies
    frontier = []
    for i, board in enumerate(positions):
        moves = list(board.legal_moves)
        if not moves:
            value[i] = ("L", 0) if board.is_check() else DRAW
            if board.is_check():
                frontier.append(i)
            continue
        remaining[i] = len(moves)
        best_promotion = None
        for move in moves:
            board.push(move)
            if board.is_insufficient_material():
                board.pop()
                continue  # a draw: never decrements the counter
            if move.promotion is not None:
                sub = promoted[move.promotion]
                child = sub[key_of(board, [move.promotion])]
                board.pop()
                if child != DRAW and child[0] == "L":
                    plies = child[1] + 1
                    best_promotion = plies if best_promotion is None else min(best_promotion, plies)
                continue
            child = index[key_of(board, kinds)]
            board.pop()
            parents[child].append(i)
        if best_promotion is not None:
            seeds[best_promotion].append(i)
    distance = 0
    while frontier or any(d >= distance for d in seeds):
        for i in seeds.pop(distance, []):
            if value[i] is None:
                value[i] = ("W", distance)
                frontier.append(i)
        following = []
        for child in frontier:
            won = value[child][0] == "W"
            for parent in parents[child]:
                if value[parent] is not None:
                    continue
                if not won:
                    value[parent] = ("W", distance + 1)
                    following.append(parent)
                else:
                    remaining[parent] -= 1
                    if remaining[parent] == 0:
                        value[parent] = ("L", distance + 1)
                        following.append(parent)
        frontier = following
        distance += 1
    return {key: (value[i] if value[i] is not None else DRAW) for key, i in index.items()}


def fen_of(key, kinds):
    board = chess.Board(None)
    wk, bk, men, white_to_move = key[0], key[1], key[2:-1], key[-1]
    board.set_piece_at(wk, chess.Piece(chess.KING, chess.WHITE))
    board.set_piece_at(bk, chess.Piece(chess.KING, chess.BLACK))
    for sq, kind in zip(men, kinds):
        board.set_piece_at(sq, chess.Piece(kind, chess.WHITE))
    board.turn = chess.WHITE if white_to_move else chess.BLACK
    return board


def label(value):
    return "D" if value == DRAW else f"{value[0]}{value[1]}"


def bounded(board, depth):
    """Exact value if the game ends (mate, stalemate, insufficient material) or mate is forced
    within `depth` plies; None otherwise."""
    if board.is_checkmate():
        return ("L", 0)
    if board.is_stalemate() or board.is_insufficient_material():
        return DRAW
    if depth == 0:
        return None
    best_win = None
    all_lost = True
    worst_loss = 0
    for move in list(board.legal_moves):
        board.push(move)
        child = bounded(board, depth - 1)
        board.pop()
        if child is None or child == DRAW:
            all_lost = False
            if child == DRAW and board.is_capture(move):
                return DRAW  # capturing into insufficient material: a draw, decided now
            continue
        kind, plies = child
        if kind == "L":
            best_win = plies + 1 if best_win is None else min(best_win, plies + 1)
            all_lost = False
        else:
            worst_loss = max(worst_loss, plies + 1)
    if best_win is not None:
        return ("W", best_win)
    if all_lost:
        return ("L", worst_loss)
    return None


KBNK = [chess.BISHOP, chess.KNIGHT]


def kbnk_label(board):
    """The bounded-search label: 3 plies with the strong side to move, 2 with the lone king."""
    depth = 3 if board.turn == chess.WHITE else 2
    value = bounded(board, depth)
    return ">%d" % depth if value is None else label(value)


def kbnk_random(rng, count):
    samples = []
    while len(samples) < count:
        squares = tuple(rng.randrange(64) for _ in range(4))
        board = legal_board(squares, KBNK, rng.random() < 0.5)
        if board is not None:
            samples.append((board.fen(), kbnk_label(board)))
    return samples


def kbnk_near_mates(rng):
    """About 200 positions a few plies from mate, each labelled by the bounded search alone.

    40 checkmates are found by rejection sampling near a corner. Candidates one ply earlier are
    made by moving a man of the side that just moved back (a king to a neighbouring square, a
    bishop or knight to random empty squares), 100 of them labelled; then 60 candidates one more
    ply back from those found won. The search, not this construction, decides every label."""
    mates = []
    while len(mates) < 40:
        corner = rng.choice([0, 7, 56, 63])
        cf, cr = chess.square_file(corner), chess.square_rank(corner)
        near = [s for s in chess.SQUARES
                if max(abs(chess.square_file(s) - cf), abs(chess.square_rank(s) - cr)) <= 3]
        board = legal_board(tuple(rng.choice(near) for _ in range(4)), KBNK, False)
        if board is not None and board.is_checkmate() and board.fen() not in mates:
            mates.append(board.fen())
    samples = [(fen, "L0") for fen in mates]
    layer = mates
    for keep in (100, 60):
        earlier = []
        for fen in layer:
            board = chess.Board(fen)
            mover = not board.turn
            for sq in chess.SquareSet(board.occupied_co[mover]):
                piece = board.piece_at(sq)
                if piece.piece_type == chess.KING:
                    origins = list(chess.SquareSet(chess.BB_KING_ATTACKS[sq]))
                else:
                    origins = rng.sample(chess.SQUARES, 8)
                for origin in origins:
                    if board.piece_at(origin) is not None:
                        continue
                    candidate = board.copy()
                    candidate.remove_piece_at(sq)
                    candidate.set_piece_at(origin, piece)
                    candidate.turn = mover
                    status = candidate.status() & ~chess.STATUS_IMPOSSIBLE_CHECK
                    if status == chess.STATUS_VALID and candidate.fen() not in earlier:
                        earlier.append(candidate.fen())
        chosen = rng.sample(earlier, min(len(earlier), keep))
        labelled = [(fen, kbnk_label(chess.Board(fen))) for fen in chosen]
        samples += labelled
        layer = [fen for fen, value in labelled if value.startswith("W")]
    return samples


def main():
    rng = random.Random(SEED)
    tables = {}
    tables["KQK"] = solve("KQK", {})
    tables["KRK"] = solve("KRK", {})
    tables["KPK"] = solve("KPK", {chess.QUEEN: tables["KQK"], chess.ROOK: tables["KRK"],
                                  chess.BISHOP: None, chess.KNIGHT: None})
    with open("reference_counts.txt", "w") as out:
        out.write("# Generated by gen_reference.py (python-chess %s); see its docstring.\n"
                  % chess.__version__)
        for material in ("KQK", "KRK", "KPK"):
            counts = defaultdict(int)
            for key, value in tables[material].items():
                side = "w" if key[-1] else "b"
                counts[(side, DRAW if value == DRAW else value[1])] += 1
            def order(item):
                (side, value), _ = item
                return (side == "b", value == DRAW, 0 if value == DRAW else value)
            for (side, value), count in sorted(counts.items(), key=order):
                out.write(f"{material} {side} {value} {count}\n")
    samples = []
    for material in ("KQK", "KRK", "KPK"):
        keys = sorted(tables[material])
        kinds = STRONG[material]
        for key in rng.sample(keys, 300):
            board = fen_of(key, kinds)
            value = label(tables[material][key])
            if rng.random() < 1 / 3:
                board = board.mirror()
            samples.append((board.fen(), value))
    for fen, value in kbnk_random(rng, 200) + kbnk_near_mates(rng):
        board = chess.Board(fen)
        if rng.random() < 1 / 3:
            board = board.mirror()
        samples.append((board.fen(), value))
    with open("samples.txt", "w") as out:
        out.write("# Generated by gen_reference.py (python-chess %s); FEN;VALUE, see its docstring.\n"
                  % chess.__version__)
        for fen, value in samples:
            out.write(f"{fen};{value}\n")


if __name__ == "__main__":
    main()

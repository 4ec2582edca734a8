#!/usr/bin/env python3
"""Independent oracle for the pattern functions of Che (Nimzo 3).

Writes patterns.jsonl: a first line {"calls": [...]} with Che pattern-function calls (some
negated with `!`), then one line per position with its FEN, its piece bitboards and the truth
of every call on it ("1"/"0", one character per call, in order). The truth is computed here
with python-chess (https://python-chess.readthedocs.io) and plain Python, from the definitions
in docs/che3.md, sharing no code with the Rust implementation:

  wpwns / bpwns (squares)      a pawn of the colour on every square
  orwpwns / orbpwns (squares)  a pawn of the colour on at least one square
  wpwncols / bpwncols (cols)   every column has a pawn of the colour
  opencols (cols)              no pawn of either colour on any of the columns
  pwnrams (squares)            on every square a white pawn with a black pawn right above it
  piecesqrs (piece squares)    the piece on at least one square
  piececols / piecerows        for each column (row) named n times: at least n such pieces on it
  piecesonbrd (pieces)         for each piece named n times: at least n of it on the board
  wkingside / bkingside (side) the king on the side (kside files e-h, qside a-d)
  isendgame ()                 knights 300, bishops 325, rooks 500, queens 900 of both
                               colours add up to at most 4 rooks + 2 bishops (2650)

An empty list makes the AND-style functions true and the OR-style ones false.

CI does not run Python: patterns.jsonl is committed beside this script and
cvm/che3/tests/che3_patterns.rs reads it.

Usage: python3 gen_patterns.py > patterns.jsonl   (python3 -m pip install chess)
"""

import json
import random
import sys

import chess

SEED = 0xC3E3
POSITIONS = 300
CALLS_PER_FUNCTION = 22
FILES = "abcdefgh"
COLOURS = [chess.WHITE, chess.BLACK]
KINDS = [chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING]
KIND_LETTERS = "PNBRQK"
SIDES = {"kside": "efgh", "qside": "abcd"}
VALUES = {chess.KNIGHT: 300, chess.BISHOP: 325, chess.ROOK: 500, chess.QUEEN: 900}
LIMIT = 4 * 500 + 2 * 325

# Positions around isendgame's limit and with rams and rank-8 pawns' neighbours.
EXTRA = [
    "4k3/8/8/8/8/8/8/R2QK2R w - - 0 1",
    "r2qk2r/8/8/8/8/8/8/R2QK2R w - - 0 1",
    "r1b1k2r/8/8/8/8/8/8/R1B1K2R w - - 0 1",
    "r1b1k2r/8/8/8/8/8/8/RNB1K2R w - - 0 1",
    "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
    "rnbqkbnr/ppp2ppp/4p3/3pP3/3P4/8/PPP2PPP/RNBQKBNR b KQkq - 0 3",
    "r1bqkbnr/pp3ppp/2n1p3/2ppP3/3P4/2P2N2/PP3PPP/RNBQKB1R b KQkq - 1 5",
    "6k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 1",
    "2k5/1pp5/p7/8/8/P7/1PP5/2K5 w - - 0 1",
]


def piece(p):
    colour = chess.WHITE if p[0] == "w" else chess.BLACK
    return chess.Piece(KIND_LETTERS.index(p[1]) + 1, colour)


def count_on(board, p, squares):
    return sum(1 for s in squares if board.piece_at(s) == p)


def file_squares(f):
    return [chess.square(f, r) for r in range(8)]


def rank_squares(r):
    return [chess.square(f, r) for f in range(8)]


def multiplicity(items):
    out = {}
    for i in items:
        out[i] = out.get(i, 0) + 1
    return out


def truth(board, name, args):
    wp, bp = chess.Piece(chess.PAWN, chess.WHITE), chess.Piece(chess.PAWN, chess.BLACK)
    if name in ("wpwns", "bpwns", "orwpwns", "orbpwns"):
        p = wp if name.startswith(("w", "orw")) else bp
        hits = [board.piece_at(chess.parse_square(a)) == p for a in args]
        return any(hits) if name.startswith("or") else all(hits)
    if name in ("wpwncols", "bpwncols"):
        p = wp if name[0] == "w" else bp
        return all(count_on(board, p, file_squares(FILES.index(c[0]))) > 0 for c in args)
    if name == "opencols":
        return all(count_on(board, wp, file_squares(FILES.index(c[0]))) == 0
                   and count_on(board, bp, file_squares(FILES.index(c[0]))) == 0 for c in args)
    if name == "pwnrams":
        out = True
        for a in args:
            s = chess.parse_square(a)
            if chess.square_rank(s) == 7:
                out = False
            elif not (board.piece_at(s) == wp and board.piece_at(s + 8) == bp):
                out = False
        return out
    if name == "piecesqrs":
        p = piece(args[0])
        return any(board.piece_at(chess.parse_square(a)) == p for a in args[1:])
    if name in ("piececols", "piecerows"):
        p = piece(args[0])
        for line, n in multiplicity(args[1:]).items():
            squares = (file_squares(FILES.index(line[0])) if name == "piececols"
                       else rank_squares(int(line[3]) - 1))
            if count_on(board, p, squares) < n:
                return False
        return True
    if name == "piecesonbrd":
        for p, n in multiplicity(args).items():
            if count_on(board, piece(p), chess.SQUARES) < n:
                return False
        return True
    if name in ("wkingside", "bkingside"):
        k = board.king(chess.WHITE if name[0] == "w" else chess.BLACK)
        return k is not None and FILES[chess.square_file(k)] in SIDES[args[0]]
    if name == "isendgame":
        total = sum(VALUES[t] * len(board.pieces(t, c)) for t in VALUES for c in COLOURS)
        return total <= LIMIT
    raise ValueError(name)


def positions(rng):
    seen = set()
    for fen in [chess.STARTING_FEN] + EXTRA:
        seen.add(fen)
        yield chess.Board(fen)
    while True:
        board = chess.Board()
        plies = rng.randint(6, 160)
        samples = set(rng.sample(range(1, plies + 1), k=min(4, plies)))
        for ply in range(1, plies + 1):
            moves = list(board.legal_moves)
            if not moves:
                break
            captures = [m for m in moves if board.is_capture(m)]
            pool = captures if captures and rng.random() < 0.4 else moves
            board.push(rng.choice(pool))
            if ply in samples and board.fen() not in seen:
                seen.add(board.fen())
                yield board.copy()


def square_name(s):
    return chess.square_name(s)


def random_args(rng, name, board):
    """Arguments for a call of `name`, drawn at random, or (half the time) from what stands on
    `board`, so that calls hold as often as they fail."""
    from_board = rng.random() < 0.5
    n = rng.choice([1, 1, 2, 2, 3, 4])
    if rng.random() < 0.04:
        n = 0
    pieces = [c + k for c in "wb" for k in KIND_LETTERS]
    if name in ("wpwns", "bpwns", "orwpwns", "orbpwns", "pwnrams"):
        colour = chess.BLACK if name.startswith(("b", "orb")) else chess.WHITE
        own = list(board.pieces(chess.PAWN, colour))
        if name == "pwnrams":
            own = [s for s in own if s < 56 and board.piece_at(s + 8) == chess.Piece(chess.PAWN, chess.BLACK)] or own
        pool = own if from_board and own else list(range(8, 56))
        if name == "pwnrams" and rng.random() < 0.05:
            pool = list(range(56, 64))
        return [square_name(rng.choice(pool)) for _ in range(n)]
    if name in ("wpwncols", "bpwncols", "opencols"):
        return [rng.choice(FILES) + "line" for _ in range(n)]
    if name in ("piecesqrs", "piececols", "piecerows"):
        if from_board:
            occupied = [s for s in chess.SQUARES if board.piece_at(s)]
            s = rng.choice(occupied)
            p = board.piece_at(s)
            pc = ("w" if p.color else "b") + KIND_LETTERS[p.piece_type - 1]
            others = [t for t in chess.SQUARES if board.piece_at(t) == p]
        else:
            pc = rng.choice(pieces)
            others = [rng.randrange(64)]
        n = max(n, 1)
        picks = [rng.choice(others) if rng.random() < 0.6 else rng.randrange(64) for _ in range(n)]
        if name == "piecesqrs":
            return [pc] + [square_name(s) for s in picks]
        if name == "piececols":
            return [pc] + [FILES[chess.square_file(s)] + "line" for s in picks]
        return [pc] + ["row%d" % (chess.square_rank(s) + 1) for s in picks]
    if name == "piecesonbrd":
        if from_board:
            present = [("w" if p.color else "b") + KIND_LETTERS[p.piece_type - 1]
                       for p in board.piece_map().values()]
            return [rng.choice(present) for _ in range(n)]
        return [rng.choice(pieces) for _ in range(n)]
    if name in ("wkingside", "bkingside"):
        return [rng.choice(["kside", "qside"])]
    if name == "isendgame":
        return []
    raise ValueError(name)


FUNCTIONS = ["wpwns", "bpwns", "wpwncols", "bpwncols", "opencols", "orwpwns", "orbpwns",
             "pwnrams", "piecesqrs", "piececols", "piecerows", "piecesonbrd", "wkingside",
             "bkingside", "isendgame"]


def main():
    rng = random.Random(SEED)
    boards = []
    for n, board in enumerate(positions(rng)):
        if n == POSITIONS:
            break
        boards.append(board)
    calls = []
    for name in FUNCTIONS:
        count = 4 if name == "isendgame" else CALLS_PER_FUNCTION
        for _ in range(count):
            args = random_args(rng, name, rng.choice(boards))
            negated = rng.random() < 0.2
            calls.append((negated, name, args))
    out = sys.stdout
    out.write(json.dumps({"calls": [("!" if neg else "") + "%s(%s)" % (name, " ".join(args))
                                    for neg, name, args in calls]}) + "\n")
    for board in boards:
        bits = "".join("1" if truth(board, name, args) != neg else "0"
                       for neg, name, args in calls)
        pieces = [[int(board.pieces_mask(k, c)) for k in KINDS] for c in COLOURS]
        out.write(json.dumps({"fen": board.fen(), "pieces": pieces, "truth": bits},
                             separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()

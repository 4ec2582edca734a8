#!/usr/bin/env python3
"""Independent oracle for the Che chess intrinsics.

Plays seeded random games with python-chess (https://python-chess.readthedocs.io),
samples positions from them, and writes for each position the facts the CVM's
pattern functions must agree with, computed here with python-chess and plain
Python only (no code shared with the Rust implementation):

  fen          the position
  pieces       [colour][kind] piece bitboards (kinds P N B R Q K; bit n = square n, a1 = 0)
  attacks      [colour][kind] union of python-chess `Board.attacks` of those pieces
  passed       [colour] bitboard of passed pawns (no enemy pawn ahead on the own or an adjacent file)
  doubled      [colour] bitboard of pawns sharing their file with another pawn of their colour
  pawn_files   [colour][file] number of pawns
  king_sides   [colour] the board sides (kside qside centre kkside qqside) the king stands on
  exchange     [colour] bitboard of squares the colour has exchange control over: a recursive
               static exchange evaluation over python-chess `Board.attackers` (x-rays appear
               because captured-from squares are emptied on a board copy)

CI does not run Python: the output, oracle.jsonl, is committed next to this script, and
chess-core/engine/tests/intrinsics_oracle.rs compares every intrinsic against it.

Usage: python3 gen_oracle.py > oracle.jsonl   (python3 -m pip install chess)
"""

import json
import random
import sys

import chess

SEED = 0xC4E
POSITIONS = 240
COLOURS = [chess.WHITE, chess.BLACK]  # index 0 = White, as in the CVM board view
KINDS = [chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING]
# Material values of the exchange evaluation, as docs/che-reference.md defines them.
VALUES = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 325, chess.ROOK: 500,
          chess.QUEEN: 900, chess.KING: 20000}
SIDES = [("kside", "efgh"), ("qside", "abcd"), ("centre", "de"), ("kkside", "fgh"),
         ("qqside", "abc")]


def mask(squares):
    m = 0
    for s in squares:
        m |= 1 << s
    return m


def attacks(board, colour, kind):
    m = 0
    for s in board.pieces(kind, colour):
        m |= int(board.attacks(s))
    return m


def passed(board, colour):
    enemy = board.pieces(chess.PAWN, not colour)
    out = []
    for s in board.pieces(chess.PAWN, colour):
        f, r = chess.square_file(s), chess.square_rank(s)
        blocked = False
        for e in enemy:
            ef, er = chess.square_file(e), chess.square_rank(e)
            ahead = er > r if colour == chess.WHITE else er < r
            if abs(ef - f) <= 1 and ahead:
                blocked = True
        if not blocked:
            out.append(s)
    return mask(out)


def doubled(board, colour):
    pawns = list(board.pieces(chess.PAWN, colour))
    return mask(s for s in pawns
                if sum(1 for o in pawns if chess.square_file(o) == chess.square_file(s)) >= 2)


def pawn_files(board, colour):
    counts = [0] * 8
    for s in board.pieces(chess.PAWN, colour):
        counts[chess.square_file(s)] += 1
    return counts


def king_sides(board, colour):
    k = board.king(colour)
    if k is None:
        return []
    f = "abcdefgh"[chess.square_file(k)]
    return [name for name, files in SIDES if f in files]


def least_valuable(board, colour, square):
    best = None
    for s in board.attackers(colour, square):
        key = (VALUES[board.piece_type_at(s)], s)
        if best is None or key < best:
            best = key
    return best


def capture_gain(board, square, colour, victim):
    """What `colour` nets by capturing first on `square` (where a piece worth `victim`
    stands) with its least valuable attacker, the opponent then recapturing only while
    it gains; None when `colour` has no attacker."""
    att = least_valuable(board, colour, square)
    if att is None:
        return None
    value, origin = att
    after = board.copy(stack=False)
    piece = after.remove_piece_at(origin)
    after.set_piece_at(square, piece)
    reply = capture_gain(after, square, not colour, value)
    return victim - max(0, reply) if reply is not None else victim


def has_exchange_control(board, colour, square):
    piece = board.piece_at(square)
    if piece is not None and piece.color == colour:
        g = capture_gain(board, square, not colour, VALUES[piece.piece_type])
        return g is None or g <= 0
    if piece is not None:
        g = capture_gain(board, square, colour, VALUES[piece.piece_type])
        return g is not None and g >= 0
    att = least_valuable(board, colour, square)
    if att is None:
        return False
    value, origin = att
    after = board.copy(stack=False)
    mover = after.remove_piece_at(origin)
    after.set_piece_at(square, mover)
    g = capture_gain(after, square, not colour, value)
    return g is None or g <= 0


def record(board):
    return {
        "fen": board.fen(),
        "pieces": [[int(board.pieces_mask(k, c)) for k in KINDS] for c in COLOURS],
        "attacks": [[attacks(board, c, k) for k in KINDS] for c in COLOURS],
        "passed": [passed(board, c) for c in COLOURS],
        "doubled": [doubled(board, c) for c in COLOURS],
        "pawn_files": [pawn_files(board, c) for c in COLOURS],
        "king_sides": [king_sides(board, c) for c in COLOURS],
        "exchange": [mask(s for s in chess.SQUARES if has_exchange_control(board, c, s))
                     for c in COLOURS],
    }


def positions(rng):
    seen = set()
    board = chess.Board()
    seen.add(board.fen())
    yield board.copy()
    while True:
        board = chess.Board()
        plies = rng.randint(8, 180)
        samples = set(rng.sample(range(1, plies + 1), k=min(4, plies)))
        for ply in range(1, plies + 1):
            moves = list(board.legal_moves)
            if not moves:
                break
            captures = [m for m in moves if board.is_capture(m)]
            # Prefer captures now and then, so games reach sparse endgames with passed pawns.
            pool = captures if captures and rng.random() < 0.4 else moves
            board.push(rng.choice(pool))
            if ply in samples and board.fen() not in seen:
                seen.add(board.fen())
                yield board.copy()


def main():
    rng = random.Random(SEED)
    out = sys.stdout
    for n, board in enumerate(positions(rng)):
        if n == POSITIONS:
            break
        out.write(json.dumps(record(board), separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()

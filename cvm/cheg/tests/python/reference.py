"""Independent expectations for the CHEG runtime, computed with python-chess.

Reads FENs (one per line) on stdin; for each prints one line per fact, in
the format of CHEG's BREAK output:

  LM      the legal moves, ordered by from-square, to-square (a1=0 .. h8=63)
          and promotion piece (none, q, r, b, n)
  CAPT    the legal moves that capture (python-chess is_capture)
  CHECK   the legal moves that give check
  PAWNS   every pawn, file a..h, on a file from rank 1 up (the PG order)
  PASSD   those pawns with no enemy pawn ahead on the same or a
          neighbouring file
  PDP     those pawns attacked (defended) by a pawn of their own colour
  PG      the pawn groups: pawns split where a file has no pawn
followed by a line `--`.
"""
import sys
import chess

PROMO = {None: 0, chess.QUEEN: 1, chess.ROOK: 2, chess.BISHOP: 3, chess.KNIGHT: 4}


def piece_text(board, sq):
    p = board.piece_at(sq)
    return ("w" if p.color == chess.WHITE else "b") + p.symbol().upper() + "@" + chess.square_name(sq)


def set_text(items):
    return "(" + ",".join(items) + ")"


def main():
    for fen in sys.stdin.read().split("\n"):
        fen = fen.strip()
        if not fen:
            continue
        board = chess.Board(fen)
        moves = sorted(board.legal_moves, key=lambda m: (m.from_square, m.to_square, PROMO[m.promotion]))
        print(set_text(m.uci() for m in moves))
        print(set_text(m.uci() for m in moves if board.is_capture(m)))
        print(set_text(m.uci() for m in moves if board.gives_check(m)))
        pawns = []
        groups = []
        current = []
        for f in range(8):
            on_file = [chess.square(f, r) for r in range(8)
                       if board.piece_type_at(chess.square(f, r)) == chess.PAWN]
            if on_file:
                current.extend(on_file)
                pawns.extend(on_file)
            elif current:
                groups.append(current)
                current = []
        if current:
            groups.append(current)
        print(set_text(piece_text(board, s) for s in pawns))

        def passed(sq):
            colour = board.color_at(sq)
            f, r = chess.square_file(sq), chess.square_rank(sq)
            for e in board.pieces(chess.PAWN, not colour):
                ef, er = chess.square_file(e), chess.square_rank(e)
                ahead = er > r if colour == chess.WHITE else er < r
                if abs(ef - f) <= 1 and ahead:
                    return False
            return True

        def defended(sq):
            colour = board.color_at(sq)
            return bool(board.attackers(colour, sq) & board.pieces(chess.PAWN, colour))

        print(set_text(piece_text(board, s) for s in pawns if passed(s)))
        print(set_text(piece_text(board, s) for s in pawns if defended(s)))
        print(set_text(set_text(piece_text(board, s) for s in g) for g in groups))
        print("--")


main()

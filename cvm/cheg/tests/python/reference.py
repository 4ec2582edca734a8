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
  OPP     whether the kings stand an even number of files and ranks apart
  INSQ    for each pawn (PAWNS order), whether the enemy king is in its
          square by the rule of docs/cheg.md (the original's)
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
        wk, bk = board.king(chess.WHITE), board.king(chess.BLACK)
        even = (chess.square_file(wk) - chess.square_file(bk)) % 2 == 0 and \
            (chess.square_rank(wk) - chess.square_rank(bk)) % 2 == 0
        print("T" if even else "F")

        def rank_for(colour, sq):
            r = chess.square_rank(sq)
            return r + 1 if colour == chess.WHITE else 8 - r

        def in_square(pawn):
            colour = board.color_at(pawn)
            king = board.king(not colour)
            t = 9 - rank_for(colour, king)
            p = 9 - rank_for(colour, pawn)
            if p == 7:
                p = 6
            if board.turn != colour:
                p += 1
            files = abs(chess.square_file(king) - chess.square_file(pawn))
            return t <= p and files < p

        print(set_text("T" if in_square(s) else "F" for s in pawns))
        print("--")


main()

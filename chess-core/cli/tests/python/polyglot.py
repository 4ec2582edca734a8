"""python-chess as the reference for Polyglot books (used by tests/book.rs).

Modes:
  keys N SEED          print N lines `FEN;KEY` from random games: python-chess's zobrist_hash
                       (its Polyglot key) of each position; the FEN keeps the en-passant square
                       after every double step (en_passant="fen"), so the reader's own filtering
                       is tested too.
  read BOOK PGN PLIES  read BOOK with chess.polyglot and check that every position of the first
                       PLIES half-moves of PGN's games has exactly the moves played there, each
                       weighted by the number of games that played it; print OK.
  write BOOK N SEED    write a book of N random positions, each with up to three of its legal
                       moves and weights, encoding the moves by hand (castling as king takes
                       rook); print `FEN;uci:weight,uci:weight` per position.
"""
import collections
import random
import struct
import sys

import chess
import chess.pgn
import chess.polyglot


def random_positions(n, seed):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        board = chess.Board()
        for _ in range(rng.randint(1, 80)):
            moves = list(board.legal_moves)
            if not moves:
                break
            # Prefer pawn double steps and castling now and then, so that en-passant squares
            # and castling rights vary.
            special = [m for m in moves if board.is_castling(m)
                       or (board.piece_type_at(m.from_square) == chess.PAWN
                           and abs(m.to_square - m.from_square) == 16)]
            board.push(rng.choice(special) if special and rng.random() < 0.3 else rng.choice(moves))
            out.append(board.copy())
            if len(out) >= n:
                break
    return out


def keys(n, seed):
    for board in random_positions(n, seed):
        print(f"{board.fen(en_passant='fen')};{chess.polyglot.zobrist_hash(board):016x}")


def read(book, pgn, plies):
    expected = collections.defaultdict(collections.Counter)
    boards = {}
    with open(pgn) as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            board = game.board()
            for i, move in enumerate(game.mainline_moves()):
                if i >= plies:
                    break
                key = chess.polyglot.zobrist_hash(board)
                expected[key][move.uci()] += 1
                boards[key] = board.copy()
                board.push(move)
    with chess.polyglot.open_reader(book) as reader:
        total = sum(1 for _ in open(book, "rb").read()[::16])
        count = 0
        for key, board in boards.items():
            found = collections.Counter()
            for entry in reader.find_all(board, minimum_weight=0):
                found[entry.move.uci()] += entry.weight
                count += 1
            if found != expected[key]:
                print(f"MISMATCH {board.fen()}: book {dict(found)} expected {dict(expected[key])}")
                sys.exit(1)
        if count != total:
            print(f"MISMATCH: {total} entries in the book, {count} found from the games")
            sys.exit(1)
    print(f"{len(boards)} positions")
    print("OK")


def encode(board, move):
    to = move.to_square
    if board.is_kingside_castling(move):
        to = chess.square(7, chess.square_rank(move.from_square))
    elif board.is_queenside_castling(move):
        to = chess.square(0, chess.square_rank(move.from_square))
    promotion = {None: 0, chess.KNIGHT: 1, chess.BISHOP: 2, chess.ROOK: 3, chess.QUEEN: 4}[move.promotion]
    return (chess.square_file(to) | chess.square_rank(to) << 3
            | chess.square_file(move.from_square) << 6 | chess.square_rank(move.from_square) << 9
            | promotion << 12)


def write(book, n, seed):
    rng = random.Random(seed + 1)
    entries = []
    lines = {}
    for board in random_positions(n, seed):
        key = chess.polyglot.zobrist_hash(board)
        moves = list(board.legal_moves)
        if not moves or key in lines:
            continue
        chosen = rng.sample(moves, min(3, len(moves)))
        weights = [rng.randint(1, 1000) for _ in chosen]
        for m, w in zip(chosen, weights):
            entries.append((key, encode(board, m), w))
        lines[key] = f"{board.fen(en_passant='fen')};" + ",".join(
            f"{m.uci()}:{w}" for m, w in zip(chosen, weights))
    entries.sort(key=lambda e: e[0])
    with open(book, "wb") as f:
        for key, move, weight in entries:
            f.write(struct.pack(">QHHI", key, move, weight, 0))
    for line in lines.values():
        print(line)


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "keys":
        keys(int(sys.argv[2]), int(sys.argv[3]))
    elif mode == "read":
        read(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif mode == "write":
        write(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))

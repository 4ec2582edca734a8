#!/usr/bin/env python3
"""Complete games of che-engine against itself, refereed by python-chess.

python-chess drives the engine as a UCI client (as a GUI would) and keeps its own board: every
move the engine names must be legal there, and every game must end by a rule of chess (checkmate,
stalemate, insufficient material, or a claimable draw by threefold repetition or the fifty-move
rule) well before a generous move cap. One `analyse` call checks that the `info` lines carry the
fields GUIs read. Finally the first game is typed into the terminal game (`che-engine play`),
saved as PGN, and read back with python-chess's PGN parser: same moves, same result.

Usage: selfplay.py ENGINE [GAMES]. Exit status 0 on success, 1 on a failure.
"""

import os
import subprocess
import sys
import tempfile

import chess
import chess.engine
import chess.pgn

MAX_PLIES = 600
LIMIT = chess.engine.Limit(depth=3)


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def play_game(engine, seed):
    board = chess.Board()
    engine.configure({"Random": True, "RandomSeed": seed, "RandomMargin": 25, "Hash": 8})
    game_id = object()
    while board.outcome(claim_draw=True) is None:
        if board.ply() >= MAX_PLIES:
            fail(f"game {seed} did not end by a rule within {MAX_PLIES} plies: {board.fen()}")
        result = engine.play(board, LIMIT, game=game_id)
        move = result.move
        if move is None or move not in board.legal_moves:
            fail(f"game {seed}: illegal move {move} in {board.fen()}")
        board.push(move)
    outcome = board.outcome(claim_draw=True)
    print(f"game {seed}: {board.ply()} plies, {outcome.termination.name}, {outcome.result()}")
    return board


def check_info(engine):
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    info = engine.analyse(board, chess.engine.Limit(depth=5))
    for key in ("depth", "seldepth", "score", "nodes", "nps", "time", "pv", "hashfull"):
        if key not in info:
            fail(f"info lacks {key}: {info}")
    if info["depth"] != 5 or not info["pv"] or info["pv"][0] not in board.legal_moves:
        fail(f"bad analysis: {info}")
    mate = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    info = engine.analyse(mate, chess.engine.Limit(depth=3))
    if info["score"].white() != chess.engine.Mate(1):
        fail(f"mate in one reported as {info['score']}")


def check_pgn(engine_path, board):
    path = os.path.join(tempfile.mkdtemp(), "game.pgn")
    script = "computer none\ncomments off\n"
    script += "".join(move.uci() + "\n" for move in board.move_stack)
    script += f"save {path}\n"
    subprocess.run([engine_path, "play"], input=script, text=True, check=True,
                   stdout=subprocess.DEVNULL, timeout=120)
    with open(path) as f:
        game = chess.pgn.read_game(f)
    if game is None or game.errors:
        fail(f"python-chess cannot read the PGN: {game and game.errors}")
    moves = list(game.mainline_moves())
    if moves != board.move_stack:
        fail("the PGN's moves differ from the game")
    expected = board.outcome(claim_draw=True).result()
    if game.headers["Result"] != expected:
        fail(f"PGN result {game.headers['Result']}, expected {expected}")
    print(f"PGN of game 1 read back: {len(moves)} moves, {expected}")


def main():
    engine_path = sys.argv[1]
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    with chess.engine.SimpleEngine.popen_uci(engine_path) as engine:
        check_info(engine)
        boards = [play_game(engine, seed) for seed in range(1, games + 1)]
    check_pgn(engine_path, boards[0])
    print("OK")


if __name__ == "__main__":
    main()

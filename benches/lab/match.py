#!/usr/bin/env python3
"""The match driver of che-lab's playing-strength experiment.

Plays one game between two configurations of a UCI engine with python-chess's engine module
and prints the result as one JSON line. che-lab calls it once per game (so that shards can split
a match game by game); colours and openings alternate by the game number:

    match.py --engine CMD... --a '{"AdviceMode": "root"}' --b '{"AdviceMode": "off"}' \
             --game 7 --movetime 50 --max-plies 160

Game g starts from opening g // 2 (modulo the list below, shifted by --seed) with engine A as
White when g is even, so every opening is played once with each colour. A game ends by the rules
(mate, stalemate, insufficient material, fifty moves, threefold repetition) or, after
--max-plies half-moves, is adjudicated a draw.
"""

import argparse
import json
import sys

import chess
import chess.engine

# Short, common opening lines (UCI moves), so that a deterministic engine plays different games.
OPENINGS = [
    "e2e4 e7e5 g1f3 b8c6 f1b5",
    "e2e4 c7c5 g1f3 d7d6 d2d4",
    "e2e4 e7e6 d2d4 d7d5",
    "e2e4 c7c6 d2d4 d7d5",
    "d2d4 d7d5 c2c4 e7e6",
    "d2d4 g8f6 c2c4 e7e6 g1f3",
    "d2d4 g8f6 c2c4 g7g6 b1c3",
    "c2c4 e7e5 b1c3 g8f6",
    "g1f3 d7d5 g2g3 g8f6",
    "e2e4 e7e5 g1f3 g8f6",
    "e2e4 d7d5 e4d5 d8d5",
    "d2d4 d7d5 g1f3 g8f6 e2e3",
    "e2e4 c7c5 b1c3 b8c6",
    "d2d4 f7f5 g2g3 g8f6",
    "e2e4 g7g6 d2d4 f8g7",
    "c2c4 c7c5 g1f3 b8c6",
]


def parse():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--engine", nargs="+", required=True, help="the engine command")
    p.add_argument("--a", default="{}", help="UCI options of engine A (JSON object)")
    p.add_argument("--b", default="{}", help="UCI options of engine B (JSON object)")
    p.add_argument("--game", type=int, required=True, help="game number (0-based)")
    p.add_argument("--movetime", type=int, default=50, help="milliseconds per move")
    p.add_argument("--max-plies", type=int, default=160, help="adjudicate a draw after this")
    p.add_argument("--seed", type=int, default=0, help="shifts the opening order")
    return p.parse_args()


def main():
    args = parse()
    opening_index = (args.game // 2 + args.seed) % len(OPENINGS)
    a_white = args.game % 2 == 0
    board = chess.Board()
    for uci in OPENINGS[opening_index].split():
        board.push_uci(uci)
    engines = {}
    try:
        for name, options in (("a", json.loads(args.a)), ("b", json.loads(args.b))):
            engine = chess.engine.SimpleEngine.popen_uci(args.engine)
            engine.configure(options)
            engines[name] = engine
        white, black = ("a", "b") if a_white else ("b", "a")
        limit = chess.engine.Limit(time=args.movetime / 1000.0)
        termination = "max-plies"
        while not board.is_game_over(claim_draw=True):
            if board.ply() >= args.max_plies:
                break
            mover = white if board.turn == chess.WHITE else black
            result = engines[mover].play(board, limit)
            if result.move is None or result.move not in board.legal_moves:
                raise RuntimeError(f"engine {mover} returned {result.move} in {board.fen()}")
            board.push(result.move)
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            termination = outcome.termination.name.lower()
            result = outcome.result()
        else:
            result = "1/2-1/2"
        a_points = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
        if not a_white:
            a_points = 1.0 - a_points
        print(json.dumps({
            "game": args.game,
            "opening": opening_index,
            "a_white": a_white,
            "result": result,
            "a_points": a_points,
            "plies": board.ply(),
            "termination": termination,
        }))
    finally:
        for engine in engines.values():
            try:
                engine.quit()
            except (chess.engine.EngineError, chess.engine.EngineTerminatedError):
                pass


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # reported to che-lab on stderr with a non-zero status
        print(f"match.py: {e}", file=sys.stderr)
        sys.exit(1)

"""The reference policy of MiniWoB++'s tic-tac-toe: the board is read from a screenshot
(nine bordered cells; an X has ink at its middle, an O only around it) and each move is the
one with the best chance to win against an opponent that, half the time, wins or blocks
when it can and otherwise plays at random. The game reasoning (:func:`best_move`) and the
reading of a cell (:func:`mark_of`) are pure.

tic-tac-toe is not in the suite: no policy wins 95% of its games (see the catalog), so this
reference is not among :data:`~.reference.POLICIES`; it is kept to measure that rate."""

from __future__ import annotations

from functools import cache

from PIL import Image

from .picking import squares
from .policy import Play, Policy, act, look, stuck
from .seeing import screenshot

__all__ = ["POLICIES", "best_move", "mark_of", "read_board"]

Board = tuple[int, ...]
"""Nine cells in reading order: 1 ours (X), -1 the opponent's (O), 0 empty."""

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8),
         (2, 4, 6))
SMART = 0.5
"""How often the modelled opponent wins or blocks when it can (else it plays at random)."""


def won(board: Board, who: int) -> bool:
    return any(all(board[i] == who for i in line) for line in LINES)


def _completing(board: Board, who: int) -> list[int]:
    """The empty cells that would complete a line of ``who``."""
    return sorted({i for line in LINES for i in line
                   if board[i] == 0 and sum(board[j] == who for j in line) == 2})


def _put(board: Board, cell: int, who: int) -> Board:
    return (*board[:cell], who, *board[cell + 1:])


def _opponent(board: Board) -> dict[int, float]:
    """The modelled opponent's next cell, as chances."""
    free = [i for i in range(9) if board[i] == 0]
    chances = dict.fromkeys(free, (1 - SMART) / len(free))
    smart = _completing(board, -1) or _completing(board, 1) or free
    for i in smart:
        chances[i] += SMART / len(smart)
    return chances


@cache
def _win_chance(board: Board) -> float:
    """Our chance to win with us to move, playing best."""
    return max((_after(_put(board, i, 1)) for i in range(9) if board[i] == 0), default=0.0)


@cache
def _after(board: Board) -> float:
    """Our chance to win after our move, the opponent to move."""
    if won(board, 1):
        return 1.0
    if all(board):
        return 0.0
    chance = 0.0
    for cell, p in _opponent(board).items():
        nxt = _put(board, cell, -1)
        if not won(nxt, -1) and not all(nxt):
            chance += p * _win_chance(nxt)
    return chance


def best_move(board: Board) -> int:
    """The empty cell that gives us the best chance to win (the first of equals)."""
    free = [i for i in range(9) if board[i] == 0]
    if not free:
        raise ValueError("the board is full")
    return max(free, key=lambda i: _after(_put(board, i, 1)))


def mark_of(cell: Image.Image) -> int:
    """What a screenshot of one cell (its inside) shows: 1 for an X (ink at its middle), -1
    for an O (ink around an empty middle), 0 when empty."""
    grey = cell.convert("L")
    w, h = grey.size
    ink = sum(grey.histogram()[:128])
    if ink < 0.03 * w * h:
        return 0
    middle = grey.crop((w * 2 // 5, h * 2 // 5, w * 3 // 5 + 1, h * 3 // 5 + 1))
    centre_ink = sum(middle.histogram()[:128])
    return 1 if centre_ink > 0.2 * middle.width * middle.height else -1


def read_board(image: Image.Image) -> Board | None:
    """The board a screenshot shows: nine square cells of about 40 px with a dark border, in
    reading order; None when there are not nine."""
    cells: list[tuple[float, float]] = []
    for x, y in squares(image, 36, 48):  # a mark's ink may be a square inside its cell's
        if all(abs(x - cx) > 6 or abs(y - cy) > 6 for cx, cy in cells):
            cells.append((x, y))
    if len(cells) != 9:
        return None
    cells.sort(key=lambda c: (round(c[1] / 10), c[0]))
    return tuple(mark_of(image.crop((round(x) - 16, round(y) - 16, round(x) + 17,
                                     round(y) + 17))) for x, y in cells)


def tic_tac_toe(goal: str) -> Play:
    """"Playing as 'X', win a game of tic-tac-toe.": read the board, move, until the game
    ends (the cells are the page's nine nameless refs, in reading order)."""
    page = yield from look()
    cells = [i for i in page.all() if not i.name]
    if len(cells) != 9:
        raise stuck(f"the page shows {len(cells)} cells, not 9")
    for turn in range(5):
        board = read_board((yield from screenshot()))
        if board is None and turn:
            return None  # the game ended on the opponent's move: the page took the board away
        if board is None:
            raise stuck("the screenshot shows no board of nine cells")
        if won(board, -1) or all(board):
            raise stuck("the game is over and not won")
        move = best_move(board)
        yield from act("web_click", ref=cells[move].ref)
        if won(_put(board, move, 1), 1):
            return None
    raise stuck("the game went on past five moves")


POLICIES: dict[str, Policy] = {"tic-tac-toe": tic_tac_toe}
"""The reference policy of this task (by task name)."""

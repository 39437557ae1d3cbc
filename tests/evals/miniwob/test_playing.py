"""tic-tac-toe's reference: the board read from a drawn screenshot (X with ink at its
middle, O around an empty one), and moves that win, block, and give the best chance to win.
Pure: images drawn here."""

from __future__ import annotations

from PIL import Image, ImageDraw
from webrefs.evals.miniwob.playing import best_move, read_board


def board_image(marks: str) -> Image.Image:
    """A page with the board: nine 42 px cells with a dark border, 3 px apart; ``marks``
    is nine of ``x``, ``o`` or ``.`` in reading order."""
    image = Image.new("RGB", (200, 220), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.text((4, 4), "Playing as 'X', win a game.", fill=(0, 0, 0))
    for i, mark in enumerate(marks):
        x, y = 12 + 45 * (i % 3), 62 + 44 * (i // 3)
        draw.rectangle((x, y, x + 41, y + 41), outline=(0, 0, 0))
        if mark == "x":  # corner to corner, its ink a square of its own inside the cell
            draw.line((x + 3, y + 3, x + 38, y + 38), fill=(0, 0, 0), width=4)
            draw.line((x + 38, y + 3, x + 3, y + 38), fill=(0, 0, 0), width=4)
        elif mark == "o":
            draw.ellipse((x + 3, y + 3, x + 38, y + 38), outline=(0, 0, 0), width=3)
    return image


def test_the_board_is_read_cell_by_cell() -> None:
    assert read_board(board_image("x.o..ox..")) == (1, 0, -1, 0, 0, -1, 1, 0, 0)
    assert read_board(board_image(".........")) == (0,) * 9
    assert read_board(Image.new("RGB", (100, 100), (255, 255, 255))) is None


def test_a_move_wins_when_it_can_and_blocks_otherwise() -> None:
    assert best_move((1, 1, 0, -1, -1, 0, 0, 0, 0)) == 2  # win rather than block
    assert best_move((1, 0, 0, -1, -1, 0, 0, 0, 0)) == 5  # block the opponent's row
    assert best_move((0,) * 9) in (0, 2, 4, 6, 8)  # a corner or the centre first

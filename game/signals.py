"""Hooks other apps (tournaments) connect to, so game/ never imports them.

`game_finished` is sent inside the transaction that finishes the game, after the row
is saved: a receiver's writes commit (or roll back) together with the finish.
Arguments: game (game.models.Game), engine_game (the finished engine.Game).

`seed_sealed` asks whether a game's seed must stay secret for now (a tournament
that has not closed): a receiver returning True hides the record download.

`move_refused` is asked before every move, a person's or a bot's, with the locked game
row: a receiver returns a reason (an English message marked for translation) to refuse
the move, e.g. a tournament whose play window has ended. The relations named in
`move_row_related` are loaded with that row (select_related), so a receiver reads them
without a query of its own on this hot path.
"""

from django.dispatch import Signal

game_finished = Signal()
seed_sealed = Signal()
move_refused = Signal()
move_row_related: list[str] = []


def is_seed_sealed(game) -> bool:
    return any(response is True for _, response in seed_sealed.send(sender=type(game), game=game))

"""Connections to game/'s hooks (game/signals.py): game/ never imports tournaments."""

from django.conf import settings
from django.db.models.signals import pre_delete
from django.dispatch import receiver

from game.signals import game_finished, move_refused, move_row_related, seed_sealed

# A move's locked game row comes with its entry and tournament (one query in all), so
# the check below costs nothing on the hot path.
ENTRY_AND_TOURNAMENT = "tournament_entry__tournament"
if ENTRY_AND_TOURNAMENT not in move_row_related:
    move_row_related.append(ENTRY_AND_TOURNAMENT)


@receiver(game_finished, dispatch_uid="tournaments.entry_finishes_with_its_game")
def entry_finishes_with_its_game(sender, game, engine_game, **kwargs):
    from . import actions

    actions.game_finished(game, engine_game)
    actions.table_game_finished(game, engine_game)


@receiver(seed_sealed, dispatch_uid="tournaments.seed_sealed_until_close")
def seed_sealed_until_close(sender, game, **kwargs):
    from .models import Entry, Table

    if Entry.objects.filter(game=game).exclude(tournament__status="closed").exists():
        return True
    # A table's seed is the set's deal source, shared by every table in duplicate.
    return (
        Table.objects.filter(game=game)
        .exclude(table_set__round__tournament__status="closed")
        .exists()
    )


@receiver(move_refused, dispatch_uid="tournaments.no_moves_after_the_window")
def no_moves_after_the_window(sender, game, **kwargs):
    """A tournament entry's game takes no move once the tournament is closed or its play
    window has ended (the periodic close may come up to a minute later)."""
    from django.core.exceptions import ObjectDoesNotExist

    from . import actions

    try:
        entry = game.tournament_entry
    except ObjectDoesNotExist:
        return None
    return actions.move_refusal(entry)


@receiver(pre_delete, sender=settings.AUTH_USER_MODEL, dispatch_uid="tournaments.rerank")
def rerank_when_a_player_account_goes(sender, instance, **kwargs):
    """Deleting an account deletes its entries (and games): the standings they were in
    are recomputed once the deletion has committed, so ranks and matchpoints stay
    consistent with the entries that remain."""
    from . import actions
    from .models import Entry

    finished = Entry.objects.filter(player=instance, status=Entry.Status.FINISHED)
    for tournament_id in set(finished.values_list("tournament_id", flat=True)):
        actions.schedule_rankings(tournament_id)  # after commit (delete runs in atomic)

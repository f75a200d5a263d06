"""Connections to game/'s hooks (game/signals.py): game/ never imports tournaments."""

from django.dispatch import receiver

from game.signals import game_finished, seed_sealed


@receiver(game_finished, dispatch_uid="tournaments.entry_finishes_with_its_game")
def entry_finishes_with_its_game(sender, game, engine_game, **kwargs):
    from . import actions

    actions.game_finished(game, engine_game)


@receiver(seed_sealed, dispatch_uid="tournaments.seed_sealed_until_close")
def seed_sealed_until_close(sender, game, **kwargs):
    from .models import Entry

    return Entry.objects.filter(game=game).exclude(tournament__status="closed").exists()

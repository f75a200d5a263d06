"""A solo game being played: South (seat 0) is the person, seats 1-3 are bots.

The game is stored as the engine stores it: (seed, rules, actions). Any position is
rebuilt by replay; `state` only caches South's last observation for cheap page loads.
Models never change themselves: every mutation goes through game/actions.py.
"""

import uuid

from django.conf import settings
from django.db import models


class Game(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active", "bezig"
        FINISHED = "finished", "afgelopen"

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="games"
    )
    seed = models.CharField(max_length=100)
    rules = models.CharField(max_length=32, default="flemish")
    bot_level = models.CharField(max_length=32, default="heuristic")
    actions = models.JSONField(default=list, blank=True)
    # Always len(actions): the version number clients and tasks compare against.
    seq = models.PositiveIntegerField(default=0)
    state = models.JSONField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    # South's dagscore (own team total minus the opponents'), set when finished.
    final_score = models.IntegerField(null=True, blank=True)
    record = models.TextField(blank=True, default="")
    # "Vlot doorspelen": the table shows bot cards without pausing between them.
    fast_play = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created"]
        indexes = [
            models.Index(fields=["owner", "-created"]),
            # The sweeper's scan (ops/sweeper.py): active games by age. Partial, so the
            # ever-growing mass of finished games costs it nothing.
            models.Index(
                fields=["updated"],
                name="game_active_by_updated",
                condition=models.Q(status="active"),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.public_id} ({self.owner}, {self.status}, seq {self.seq})"

    @property
    def group_name(self) -> str:
        return group_name(self.public_id)

    @property
    def ws_path(self) -> str:
        return f"/ws/game/{self.public_id}/"


def group_name(public_id) -> str:
    return f"game-{public_id}"

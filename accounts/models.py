"""What an account keeps besides Django's user: the language its owner chose."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Preferences(models.Model):
    """An account's choices that follow it to every device: the language of the pages
    (config/middleware.py ChosenLanguageMiddleware; stored when chosen while logged in,
    or at the first login after choosing it)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preferences"
    )
    language = models.CharField(max_length=16, blank=True, default="")

    def __str__(self) -> str:
        return f"{self.user_id}: {self.language or '-'}"

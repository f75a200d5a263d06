from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"
    verbose_name = "Tornooien"

    def ready(self) -> None:
        # Connects the game-finished hook (entries finish when their game does).
        from . import receivers  # noqa: F401

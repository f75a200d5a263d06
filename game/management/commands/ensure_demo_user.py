"""Create (or reset) the local demo account demo/demo. Safe to run repeatedly."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create the demo user (demo/demo) if it does not exist."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="demo")
        parser.add_argument("--password", default="demo")

    def handle(self, *args, username: str, password: str, **options):
        user, created = get_user_model().objects.get_or_create(username=username)
        if created or not user.check_password(password):
            user.set_password(password)
            user.save()
        self.stdout.write(f"demo user {username!r} {'created' if created else 'ready'}")

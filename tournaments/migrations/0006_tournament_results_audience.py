"""Who sees a closed club tournament: its members (and players) only, or everyone.

Existing club tournaments get "members" (a club is private; before this field a club
tournament became public at close); tournaments without a club are public anyway and
get "everyone"."""

from django.db import migrations, models


def public_without_club(apps, schema_editor):
    Tournament = apps.get_model("tournaments", "Tournament")
    Tournament.objects.filter(club__isnull=True).update(results_audience="everyone")


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0005_dealplay_narrow_dealresult"),
    ]

    operations = [
        migrations.AddField(
            model_name="tournament",
            name="results_audience",
            field=models.CharField(
                choices=[
                    ("members", "club members and its players only"),
                    ("everyone", "everyone"),
                ],
                default="members",
                max_length=16,
            ),
        ),
        migrations.RunPython(public_without_club, migrations.RunPython.noop),
    ]

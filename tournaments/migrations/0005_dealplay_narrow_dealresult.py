"""Narrow deal results: the play (tricks, actions) moves to DealPlay, and the per-result
matchpoints and Neuberg values are no longer stored (computed when read).

On PostgreSQL the dropped columns' space in rows written before this migration is only
given back by a rewrite (VACUUM FULL tournaments_dealresult); rows written after it are
narrow."""

import django.db.models.deletion
from django.db import migrations, models


def copy_plays(apps, schema_editor):
    qn = schema_editor.connection.ops.quote_name
    schema_editor.execute(
        f"INSERT INTO {qn('tournaments_dealplay')} ({qn('result_id')}, {qn('tricks')}, "
        f"{qn('actions')}) SELECT {qn('id')}, {qn('tricks')}, {qn('actions')} "
        f"FROM {qn('tournaments_dealresult')}"
    )


def copy_plays_back(apps, schema_editor):
    DealResult = apps.get_model("tournaments", "DealResult")
    DealPlay = apps.get_model("tournaments", "DealPlay")
    for play in DealPlay.objects.iterator():
        DealResult.objects.filter(pk=play.result_id).update(
            tricks=play.tricks, actions=play.actions
        )


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0004_club_keeps_opened_tournaments"),
    ]

    operations = [
        migrations.CreateModel(
            name="DealPlay",
            fields=[
                (
                    "result",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="play",
                        serialize=False,
                        to="tournaments.dealresult",
                    ),
                ),
                ("tricks", models.JSONField(default=list)),
                ("actions", models.JSONField(default=list)),
            ],
        ),
        migrations.RunPython(copy_plays, copy_plays_back),
        migrations.RemoveField(model_name="dealresult", name="tricks"),
        migrations.RemoveField(model_name="dealresult", name="actions"),
        migrations.RemoveField(model_name="dealresult", name="matchpoints"),
        migrations.RemoveField(model_name="dealresult", name="neuberg"),
    ]

"""Issue 10 item 12: a tournament ranks by score (default, as before) or by the
Neuberg matchpoint percentage; entries store that percentage, filled here for the
entries ranked before (the sum of their deal matchpoints over a top on each deal)."""

from django.db import migrations, models


def fill_deal_pct(apps, schema_editor):
    Entry = apps.get_model("tournaments", "Entry")
    finished = Entry.objects.filter(status="finished", deal_matchpoints__isnull=False)
    fields: dict[int, int] = {}
    for e in finished.iterator():
        if e.tournament_id not in fields:
            fields[e.tournament_id] = Entry.objects.filter(
                tournament_id=e.tournament_id, status="finished"
            ).count()
        top = 2.0 * (fields[e.tournament_id] - 1)
        if not e.deals_played:
            continue
        pct = 50.0 if top <= 0 else 100.0 * e.deal_matchpoints / (e.deals_played * top)
        Entry.objects.filter(pk=e.pk).update(deal_matchpoints_pct=round(pct, 2))


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0005_dealplay_narrow_dealresult"),
    ]

    operations = [
        migrations.AddField(
            model_name="entry",
            name="deal_matchpoints_pct",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="tournament",
            name="ranking",
            field=models.CharField(
                choices=[
                    ("score", "by score (our points − their points)"),
                    ("matchpoints", "by matchpoint percentage (Neuberg, per deal played)"),
                ],
                default="score",
                max_length=16,
            ),
        ),
        migrations.RunPython(fill_deal_pct, migrations.RunPython.noop),
    ]

"""Dutch pages write dates the Belgian way, 7/12/2026 (Django's nl: 7-12-2026), and the
forms still read what they show and what the date pickers send."""

from __future__ import annotations

import datetime as dt

from django import forms
from django.utils import formats, translation


def test_dutch_short_dates_have_slashes():
    day = dt.date(2026, 12, 7)
    moment = dt.datetime(2026, 12, 7, 20, 15)
    for lang in ("nl", "nl-be"):
        with translation.override(lang):
            assert formats.date_format(day, "SHORT_DATE_FORMAT") == "7/12/2026"
            assert formats.date_format(moment, "SHORT_DATETIME_FORMAT") == "7/12/2026 20:15"
            assert formats.date_format(day) == "7 december 2026"


def test_dutch_date_fields_still_read_slashes_dashes_and_iso():
    day = dt.date(2026, 12, 7)
    with translation.override("nl"):
        field = forms.DateField()
        for text in ("7/12/2026", "07-12-2026", "2026-12-07"):
            assert field.clean(text) == day, text
        moment = forms.DateTimeField().clean("2026-12-07T20:15")
        assert (moment.year, moment.month, moment.day, moment.hour) == (2026, 12, 7, 20)

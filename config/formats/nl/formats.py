"""Dutch dates as Belgians write them: 7/12/2026 20:15 (Django's nl writes 7-12-2026,
the Netherlands' way). Only what differs is here: whatever is not set (the input
formats among them) comes from Django's own nl module, which reads 7/12/2026 too."""

DATE_FORMAT = "j F Y"  # 7 december 2026
TIME_FORMAT = "H:i"
DATETIME_FORMAT = "j F Y H:i"
SHORT_DATE_FORMAT = "j/n/Y"  # 7/12/2026
SHORT_DATETIME_FORMAT = "j/n/Y H:i"  # 7/12/2026 20:15
YEAR_MONTH_FORMAT = "F Y"
MONTH_DAY_FORMAT = "j F"
FIRST_DAY_OF_WEEK = 1  # Monday

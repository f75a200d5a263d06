"""The site's date formats (settings.FORMAT_MODULE_PATH), before Django's own.

Only English is overridden: Django's American "12/01/2026 8:29 a.m." reads as the 12th of
January to a Belgian; ISO-like dates and a 24-hour clock read the same everywhere. Dutch
and French keep Django's day-month order ("1-12-2026 08:29", "01/12/2026 08:29").
"""

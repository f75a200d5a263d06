"""The site's date formats (settings.FORMAT_MODULE_PATH), before Django's own.

Only English is overridden: Django's American "12/01/2026 8:29 a.m." reads as the 12th of
January to a Belgian; ISO-like dates and a 24-hour clock read the same everywhere. Dutch
writes dates the Belgian way, with slashes ("1/12/2026 08:29", config/formats/nl/: Django's
nl has the Netherlands' "1-12-2026"); French keeps Django's ("01/12/2026 08:29").
"""

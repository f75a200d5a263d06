"""makemessages that also extracts N_("…"): tournaments/actions.py marks its refusal
messages with `gettext_noop as N_` and the views translate them when shown; Django's
own command does not know the N_ alias, so those strings never reached the catalogue."""

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=N_"]

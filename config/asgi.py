"""ASGI entry point: HTTP through Django, websockets through Channels."""

import logging
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# No persistent database connections in the ASGI process (Django's advice: a request's
# sync code may run on a different thread each time, so a kept connection is one more
# idle PostgreSQL backend per thread, never reused) but a pool (DATABASE_POOL_SIZE, see
# config/settings.py), large enough for the threads that reach the database at once:
# asgiref's default executor (min(32, cores + 4)) and the thread of the sync views.
# DATABASE_POOL_SIZE or DATABASE_CONN_MAX_AGE in the environment wins (the latter alone:
# persistent connections, no pool); Celery workers never import this module and keep
# their connection. The variables are set only while the settings load, so processes
# started from here (tests) do not inherit them.
POOL_SIZE = min(32, (os.cpu_count() or 1) + 4) + 2
_defaults = {}
if "DATABASE_CONN_MAX_AGE" not in os.environ:
    _defaults["DATABASE_CONN_MAX_AGE"] = "0"
    if "DATABASE_POOL_SIZE" not in os.environ:
        _defaults["DATABASE_POOL_SIZE"] = str(POOL_SIZE)
os.environ.update(_defaults)
try:
    # Django must be set up before the consumers (and so the models) are imported.
    django_asgi_app = get_asgi_application()
finally:
    for _name in _defaults:
        os.environ.pop(_name, None)

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from game.routing import websocket_urlpatterns  # noqa: E402
from ops.sockets import QuietInvalidUtf8  # noqa: E402
from tournaments.routing import websocket_urlpatterns as tournament_ws  # noqa: E402

# A client's text frame that is not UTF-8: uvicorn closes it (1007); one line, not a traceback.
logging.getLogger("uvicorn.error").addFilter(QuietInvalidUtf8())

router = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns + tournament_ws))
        ),
    }
)


async def application(scope, receive, send):
    """The router, and the server's lifespan: at startup the embedded mode's beat
    (ops/beat.py; nothing on the production stack, where `celery beat` runs)."""
    if scope["type"] != "lifespan":
        return await router(scope, receive, send)
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            from ops import beat

            beat.start()
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return

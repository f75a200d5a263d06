from django.urls import path

from .consumers import StandingsConsumer

websocket_urlpatterns = [
    path("ws/tournaments/<int:pk>/standings/", StandingsConsumer.as_asgi()),
]

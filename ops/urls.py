from django.urls import path

from . import views

# Included before django.contrib.auth.urls so that "login" resolves to the limited view.
urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("accounts/login/", views.RateLimitedLoginView.as_view(), name="login"),
]

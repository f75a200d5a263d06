from django.urls import path

from . import views

# Included before django.contrib.auth.urls: the reset request below replaces Django's.
urlpatterns = [
    path("accounts/signup/", views.signup, name="signup"),
    # Replaces Django's logout (same name): a guest is asked first (its games are lost).
    path("accounts/logout/", views.logout, name="logout"),
    path("accounts/profile/", views.profile, name="profile"),
    path("accounts/profile/email/", views.change_email, name="profile-email"),
    path("accounts/profile/data.json", views.personal_data, name="profile-data"),
    path("accounts/profile/delete/", views.delete_account, name="profile-delete"),
    path("accounts/deleted/", views.account_deleted, name="account-deleted"),
    path(
        "accounts/password_reset/",
        views.RateLimitedPasswordResetView.as_view(),
        name="password_reset",
    ),
    path("privacy/", views.privacy, name="privacy"),
    path("players/<str:username>/", views.player_profile, name="player"),
]

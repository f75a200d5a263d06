"""Accounts: sign-up (a guest claiming their account), profiles, password reset (no models)."""

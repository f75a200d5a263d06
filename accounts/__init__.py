"""Accounts: sign-up, and a guest claiming their account (no models of its own)."""

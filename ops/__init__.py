"""Operations: health endpoint, rate limits, the stuck-game sweeper, a loopback stack.

Nothing here changes game state except through game/actions.py (the sweeper only
re-enqueues the idempotent, seq-checked bot task).
"""

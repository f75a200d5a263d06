"""Clubs and duplicate tournaments (format "solo-duplicate").

How it fits together:
- Opening a tournament stores its deals (engine.deal_for(seed, k)) and publishes
  engine.commitment(seed); the seed itself is revealed at close (verify page).
- Joining creates the entry's game through game.actions.create_game with the
  tournament's seed, rules and bot level. Bots are seeded with
  bot_seed(game.seed, deal, seat), so every entry meets the same cards and the same bot
  replies to the same plays. The entry is played on the ordinary table (/game/<id>/).
- game/signals.game_finished (sent in the transaction of the last move) finishes the
  entry: score = wij − zij, one DealResult per completed deal. After commit the
  "rankings" task recomputes standings, matchpoints and Neuberg travellers
  (tournaments.rankings, numpy) and pushes them over Channels.
- Closing (organizer or the periodic `tick` at the end of the window) applies the
  tournament's rule to unfinished games: finished by the bot (game.actions.autoplay)
  or scored as played so far (complete deals only; the game is then stopped with
  game.actions.stop_game). Then the records zip is built on the "exports" queue.
- No move counts after the window: every move, a person's or a bot's, asks
  game/signals.move_refused, and actions.move_refusal refuses it ("closed") once the
  tournament is closed or its window has ended, before the periodic close runs.
- A club with a tournament that was ever opened cannot be deleted (PROTECT; drafts go
  with it), so results never disappear with their club.
- Fairness: one entry per account (unique constraint); results only to finished players
  (or after close); whoever looked at deals/results or chose the seed may not enter
  (Tournament.deals_seen_by); a running tournament's game records stay sealed
  (game/signals.seed_sealed), since a record names the seed.
"""

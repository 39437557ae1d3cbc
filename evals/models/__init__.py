"""What plays the agent's model in an episode: the provider registry (:mod:`.providers`), the
wrapper that records and replays a provider's calls, retries them and falls back to text
actions (:mod:`.providermodel`, :mod:`.recording`, :mod:`.safeyaml`), and model prices
(:mod:`.prices`). Uses the suite and baseline groups."""

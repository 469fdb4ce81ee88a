"""The console commands, thin layers over the API: ``tpugraphs-eval`` (:mod:`.evaluate`),
``tpugraphs-leaderboard`` (:mod:`.leaderboard`), and their common guarded entry point."""

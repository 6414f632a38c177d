//! The chess engine: search, evaluation, transposition table, threads, UCI and bench.

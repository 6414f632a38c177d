//! SAN, UCI and FEN helpers.

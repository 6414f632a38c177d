//! The fixed parts of PGN that every writer of games shares.

/// The Seven Tag Roster (PGN standard, 8.1.1), in its order, each tag with
/// the value written when it is unknown.
pub const SEVEN_TAG_ROSTER: [(&str, &str); 7] = [
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("White", "?"),
    ("Black", "?"),
    ("Result", "*"),
];

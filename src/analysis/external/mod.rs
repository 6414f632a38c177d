//! External UCI engines: one process client ([`process`]), pools of its
//! processes ([`pool`]), a search on one of them ([`search`]) with its
//! `info` lines read into the same result our engine gives ([`info`]),
//! their options ([`options`]) and how they are named and configured
//! ([`spec`]).

pub(crate) mod info;
pub(crate) mod options;
pub(crate) mod pool;
pub(crate) mod process;
pub(crate) mod search;
pub(crate) mod spec;

pub use options::{parse_option, EngineOption};
pub use spec::{read_config, EngineSpec};

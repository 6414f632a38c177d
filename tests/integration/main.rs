//! Integration tests: the real binary, run in a temporary directory, and the
//! real server on a free port. One test binary, as ripgrep does.

mod api;
mod batch;
mod cli;
mod deploy;
mod hostile;
mod util;

//! Integration tests: the real binary, run in a temporary directory, and the
//! real server on a free port. One test binary, as ripgrep does.

mod access;
mod api;
mod batch;
mod batch_pdf;
mod book_scans;
mod cli;
mod coach;
mod deploy;
mod engines;
mod eval_model;
mod eval_pdf;
mod games;
mod hostile;
mod library;
mod mate;
mod ops;
mod page;
mod pdf;
mod physical;
mod recordings;
mod shard;
mod util;

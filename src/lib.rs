//! boardscan: reads chess positions out of pictures and analyses them.
//!
//! The pipeline is a chain of plain functions, each testable on its own:
//! [`vision`] finds and cuts boards, [`recognize`] classifies the squares and
//! assembles a position, [`engine`] searches it, and [`notation`] writes moves.
//! [`api`] and the binary are thin adapters over this library.

pub mod engine;
pub mod notation;

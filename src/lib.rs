//! boardscan: reads chess positions out of pictures and analyses them.
//!
//! The pipeline is a chain of plain functions, each testable on its own:
//! [`vision`] decodes images, finds boards and cuts them into squares,
//! [`recognize`] classifies the squares and assembles positions, [`analysis`]
//! searches them (our engine or external UCI engines, hints and grades) and [`notation`] reads FENs and writes moves; [`legality`] decides
//! what positions are possible, for FENs and pictures alike. [`batch`] and [`accuracy`] run the
//! pipeline over many files, [`speed`] times it; [`api`] and the binary are thin adapters.

pub mod accuracy;
pub mod analysis;
pub mod api;
pub mod batch;
pub mod formats;
pub mod games;
pub mod legality;
pub mod library;
pub mod notation;
pub mod recognize;
pub mod scan;
pub mod source;
pub mod speed;
pub mod vision;

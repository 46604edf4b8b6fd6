//! Basic-Memory-style text renderings of service results.

pub mod activity;
pub mod context;
pub mod directory;
pub mod notes;
pub mod search;

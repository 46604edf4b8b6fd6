//! Basic-Memory-style text renderings of service results.

pub mod search;

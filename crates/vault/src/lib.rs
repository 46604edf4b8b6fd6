//! Files on disk: path safety, durable writes, scanning and diffing. Knows nothing of the index.

pub mod fs;
pub mod generate;
pub mod links;
pub mod path;
pub mod scan;
pub mod watch;
pub mod writer;

//! Files on disk: path safety, durable writes, scanning and diffing. Knows nothing of the index.

pub mod file;
pub mod fs;
pub mod generate;
pub mod links;
pub mod path;
pub mod process;
pub mod scan;
pub mod watch;

//! Versioned projects: a project directory that is a git work tree, committed automatically
//! (`commits`), shared through its remote (`exchange`, `gitmem sync push|pull`), behind a gate
//! that holds pushes carrying secret-shaped text (`secrets`). [sync.md](../../../../docs/sync.md)
//! describes the behaviour; the repository work itself is the `git` crate's.

pub mod commits;
pub mod exchange;
pub mod secrets;
pub(crate) mod versioned;

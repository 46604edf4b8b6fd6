//! Progress bars for long work, shown only when stdout is a terminal.

use std::io::IsTerminal;
use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressStyle};

use engine::oneshot::{Observer, Work};
use engine::sync::SyncEvent;

pub struct SyncBar {
    bar: Option<ProgressBar>,
}

impl SyncBar {
    pub fn new(project: &str) -> Self {
        let bar = std::io::stdout().is_terminal().then(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template("{spinner} {prefix} {msg} [{bar:30}] {pos}/{len}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar.set_prefix(project.to_string());
            bar.set_message("scanning");
            bar.enable_steady_tick(std::time::Duration::from_millis(120));
            bar
        });
        Self { bar }
    }

    pub fn event(&self, event: SyncEvent) {
        let Some(bar) = &self.bar else { return };
        match event {
            SyncEvent::Scanned { files, changes } => {
                bar.set_message(format!("{files} files, {changes} changes; indexing"));
            }
            SyncEvent::Indexed { done, total } => {
                bar.set_length(total as u64);
                bar.set_position(done as u64);
            }
            SyncEvent::Searchable => bar.set_message("searchable"),
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// A bar counting units of long work (notes embedded, tokens distilled).
pub struct CountBar {
    bar: Option<ProgressBar>,
}

impl CountBar {
    pub fn new(prefix: &'static str, unit: &str) -> Self {
        Self::counting(prefix, &format!("{{pos}}/{{len}} {unit}"))
    }

    /// A bar counting bytes, shown in kB, MB or GB.
    pub fn bytes(prefix: &'static str) -> Self {
        Self::counting(prefix, "{bytes}/{total_bytes}")
    }

    /// `count` is the template of the count shown beside the bar.
    fn counting(prefix: &'static str, count: &str) -> Self {
        let bar = std::io::stdout().is_terminal().then(|| {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template(&format!(
                    "{{prefix}} [{{bar:30}}] {count}, {{eta}} left"
                ))
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            bar.set_prefix(prefix);
            bar
        });
        Self { bar }
    }

    pub fn set(&self, done: usize, total: usize) {
        if let Some(bar) = &self.bar {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The bars of a one-shot workflow: a spinner while a project syncs, a bar while work is
/// counted.
#[derive(Default)]
pub struct Bars {
    sync: Mutex<Option<SyncBar>>,
    count: Mutex<Option<CountBar>>,
}

impl Observer for Bars {
    fn syncing(&self, project: &str) {
        *self.sync.lock().unwrap_or_else(|e| e.into_inner()) = Some(SyncBar::new(project));
    }

    fn sync_event(&self, event: SyncEvent) {
        if let Some(bar) = &*self.sync.lock().unwrap_or_else(|e| e.into_inner()) {
            bar.event(event);
        }
    }

    fn counting(&self, work: Work) {
        let bar = match work {
            Work::Embedding => CountBar::new("embedding", "notes"),
            Work::QuickEmbedding => CountBar::new("embedding (quick stage)", "notes"),
            Work::Importing => CountBar::new("importing", "notes"),
            Work::Distilling => CountBar::new("distilling", "tokens"),
            Work::Fetching => CountBar::bytes("fetching model"),
        };
        *self.count.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar);
    }

    fn counted(&self, done: usize, total: usize) {
        if let Some(bar) = &*self.count.lock().unwrap_or_else(|e| e.into_inner()) {
            bar.set(done, total);
        }
    }

    fn step_done(&self) {
        if let Some(bar) = self.sync.lock().unwrap_or_else(|e| e.into_inner()).take() {
            bar.finish();
        }
        if let Some(bar) = self.count.lock().unwrap_or_else(|e| e.into_inner()).take() {
            bar.finish();
        }
    }
}

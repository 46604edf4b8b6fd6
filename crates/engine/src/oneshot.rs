//! The workflows of a one-shot process (a `gitmem` command). No watcher keeps its index in step
//! with the files and no embedder thread follows the search index, so each workflow first
//! brings its project up to date (and embeds what changed, where vectors matter), then does its
//! work. Long steps are told to an [`Observer`], which the command draws as progress bars.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use super::import::{ImportOptions, ImportReport};
use super::models::ModelInfo;
use super::projects::BasicMemoryImport;
use super::scope::ProjectChoice;
use super::search::{SearchRequest, SearchResponse};
use super::semantic::EmbedStage;
use super::sync::{SyncEvent, SyncMode, SyncReport};
use super::{App, Result};
use crate::config::Project;
use crate::models::hub::{Download, ModelFetch};
use note::import::Source;

/// What a one-shot workflow tells as it goes. Each step (a project's sync, or counted work) ends
/// with `step_done`, whether it succeeded or not.
pub trait Observer: Sync {
    /// A project is being brought up to date with its files; its events follow.
    fn syncing(&self, _project: &str) {}
    fn sync_event(&self, _event: SyncEvent) {}
    /// Counted work begins; `counted` follows as it advances.
    fn counting(&self, _work: Work) {}
    fn counted(&self, _done: usize, _total: usize) {}
    fn step_done(&self) {}
}

/// Work a one-shot workflow counts as it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// Notes embedded for semantic search.
    Embedding,
    /// Notes embedded by the quick stage's static model, ahead of the chosen one.
    QuickEmbedding,
    /// Notes written by an import.
    Importing,
    /// Tokens of a distilled model.
    Distilling,
    /// Bytes of a model's file fetched from a hub.
    Fetching,
}

/// An observer that shows nothing.
pub struct Unobserved;

impl Observer for Unobserved {}

/// An `App` as a one-shot command uses it: every workflow starts from the current files.
pub struct Oneshot<'a> {
    app: &'a App,
    observer: &'a dyn Observer,
}

/// A search made from the command line.
#[derive(Debug, Clone)]
pub struct Searched {
    pub project: String,
    /// How many of the project's files have warnings (`gitmem status` lists them).
    pub warnings: usize,
    pub response: SearchResponse,
    /// The chosen model, being fetched in the background while this search was lexical.
    pub fetching: Option<String>,
}

/// Projects rebuilt from their files.
#[derive(Debug, Clone)]
pub struct Reindexed {
    pub reports: Vec<SyncReport>,
    /// The chosen model, fetched meanwhile when it was not installed yet.
    pub fetch: ModelFetch,
    /// Notes embedded afterwards (none without a model).
    pub embedded: usize,
}

/// A model that became the default, and the notes embedded with it.
#[derive(Debug, Clone)]
pub struct ModelChanged {
    pub model: ModelInfo,
    pub embedded: usize,
}

pub(crate) fn oneshot<'a>(app: &'a App, observer: &'a dyn Observer) -> Oneshot<'a> {
    Oneshot { app, observer }
}

impl Oneshot<'_> {
    /// Brings `project` up to date with its files, telling the observer.
    fn sync(&self, project: &Project) -> Result<SyncReport> {
        self.observer.syncing(&project.name);
        let report = self.app.sync_project(project, SyncMode::Incremental, &|e| {
            self.observer.sync_event(e)
        });
        self.observer.step_done();
        report
    }

    /// Embeds what is pending, each stage its own counted step.
    fn embed(&self) -> Result<usize> {
        let stage = std::cell::Cell::new(None);
        let embedded = self.app.embed_pending(&|p| {
            if stage.get() != Some(p.stage) {
                if stage.get().is_some() {
                    self.observer.step_done();
                }
                stage.set(Some(p.stage));
                self.observer.counting(match p.stage {
                    EmbedStage::Distilling => Work::Distilling,
                    EmbedStage::Quick => Work::QuickEmbedding,
                    EmbedStage::Full => Work::Embedding,
                });
            }
            self.observer.counted(p.done, p.total);
        });
        if stage.get().is_some() {
            self.observer.step_done();
        }
        embedded
    }

    /// Brings one project or every project up to date, quietly (before `gitmem tool`).
    pub fn sync_projects(&self, project: Option<&str>) -> Result<()> {
        for p in self.app.projects(project)? {
            self.app.sync_project(&p, SyncMode::Incremental, &|_| {})?;
        }
        Ok(())
    }

    /// Runs `work` once the chosen project's index knows its current files, brought up to
    /// date without a word: for the commands that name a note as read_note does, and for the
    /// exchange with a git remote, which commits what changed on disk first.
    pub fn on_current_files<T>(
        &self,
        choice: &ProjectChoice,
        work: impl FnOnce(&App) -> Result<T>,
    ) -> Result<T> {
        let project = self.app.select_project(choice)?;
        self.app
            .sync_project(&project, SyncMode::Incremental, &|_| {})?;
        work(self.app)
    }

    /// The index must know the project's notes first: they decide what is already imported.
    pub fn import_file(
        &self,
        choice: &ProjectChoice,
        source: Source,
        file: &Path,
        options: &ImportOptions,
    ) -> Result<ImportReport> {
        let project = self.app.select_project(choice)?;
        self.sync(&project)?;
        self.observer.counting(Work::Importing);
        let report = self
            .app
            .import_file(&project, source, file, options, &|done, total| {
                self.observer.counted(done, total)
            });
        self.observer.step_done();
        report
    }

    /// Registers Basic Memory's projects and indexes those newly registered, so their
    /// memory:// URLs resolve at once.
    pub fn import_basic_memory(&self, config: Option<&Path>) -> Result<BasicMemoryImport> {
        let report = self.app.import_basic_memory(config)?;
        for imported in report.projects.iter().filter(|p| p.outcome == "registered") {
            let project = self.app.project(Some(&imported.name))?;
            self.sync(&project)?;
        }
        Ok(report)
    }

    /// Searches one project (the default one unless named) with its files and vectors current.
    /// A chosen hub model not installed yet is fetched by a process of its own started from
    /// `exe` (the gitmem binary), so this search answers at once, lexically.
    pub fn search(
        &self,
        project: Option<&str>,
        request: &SearchRequest,
        exe: &Path,
    ) -> Result<Searched> {
        let project = self.app.project(project)?;
        let fetching = crate::models::hub::fetch_model_in_background(&self.app.engine.store, exe);
        let synced = self.sync(&project)?;
        self.embed()?;
        let response = self.app.search(&project, request)?;
        Ok(Searched {
            project: project.name,
            warnings: synced.warnings.len(),
            response,
            fetching,
        })
    }

    /// inspect_query from the command line: the project brought up to date first, as for a
    /// search, so the rankings are those `gitmem search` would fuse.
    pub fn inspect_query(
        &self,
        project: Option<&str>,
        query: &str,
        limit: usize,
    ) -> Result<super::inspect::QueryInspection> {
        let project = self.app.project(project)?;
        self.sync(&project)?;
        self.embed()?;
        let choice = super::scope::ProjectChoice::named(Some(&project.name));
        self.app.inspect_query(&choice, query, limit)
    }

    /// `gitmem context`: memory_context on the current files.
    pub fn memory_context(
        &self,
        project: Option<&str>,
        request: &super::pack::PackRequest,
    ) -> Result<super::pack::ContextPack> {
        let project = self.app.project(project)?;
        self.sync(&project)?;
        self.embed()?;
        let choice = super::scope::ProjectChoice::named(Some(&project.name));
        self.app.memory_context(&choice, request)
    }

    /// memory_prune on a project brought up to date first.
    pub fn memory_prune(
        &self,
        project: Option<&str>,
        request: &super::decay::PruneRequest,
    ) -> Result<super::decay::PruneOutcome> {
        let project = self.app.project(project)?;
        self.sync(&project)?;
        let choice = super::scope::ProjectChoice::named(Some(&project.name));
        self.app.memory_prune(&choice, request)
    }

    /// memory_compact on a project brought up to date first.
    pub fn memory_compact(
        &self,
        project: Option<&str>,
        request: &super::compact::CompactRequest,
    ) -> Result<super::compact::CompactOutcome> {
        let project = self.app.project(project)?;
        self.sync(&project)?;
        let choice = super::scope::ProjectChoice::named(Some(&project.name));
        self.app.memory_compact(&choice, request)
    }

    /// Rebuilds one project or every project from its files, then embeds what changed. A
    /// chosen hub model not installed yet is fetched meanwhile; its progress is shown once
    /// the rebuild is done, and a failed fetch leaves search lexical without failing the
    /// rebuild.
    pub fn reindex(&self, project: Option<&str>) -> Result<Reindexed> {
        let progress: Mutex<Option<Download>> = Mutex::new(None);
        let showing = AtomicBool::new(false);
        let (reports, fetch) = std::thread::scope(|scope| {
            let fetching = scope.spawn(|| {
                self.app.fetch_model(&|download| {
                    if showing.load(Ordering::Relaxed) {
                        self.count_download(download);
                    }
                    *progress.lock().unwrap_or_else(|e| e.into_inner()) = Some(download.clone());
                })
            });
            let reports = self.rebuild(project);
            if !fetching.is_finished() {
                self.observer.counting(Work::Fetching);
                if let Some(download) = &*progress.lock().unwrap_or_else(|e| e.into_inner()) {
                    self.count_download(download);
                }
                showing.store(true, Ordering::Relaxed);
            }
            let fetch = fetching.join().unwrap_or_else(|_| ModelFetch::Failed {
                model: String::new(),
                error: "the fetch panicked".into(),
            });
            if showing.load(Ordering::Relaxed) {
                self.observer.step_done();
            }
            (reports, fetch)
        });
        Ok(Reindexed {
            reports: reports?,
            fetch,
            embedded: self.embed()?,
        })
    }

    fn rebuild(&self, project: Option<&str>) -> Result<Vec<SyncReport>> {
        let mut reports = Vec::new();
        for p in self.app.projects(project)? {
            self.observer.syncing(&p.name);
            let report = self
                .app
                .rebuild_project(&p, &|e| self.observer.sync_event(e));
            self.observer.step_done();
            reports.push(report?);
        }
        Ok(reports)
    }

    fn count_download(&self, download: &Download) {
        let total = download.total.unwrap_or(download.done);
        self.observer
            .counted(download.done as usize, total as usize);
    }

    /// Counts a download, telling the observer it began at its first bytes (installs from a
    /// file download nothing).
    fn show_download(&self, download: &Download, began: &AtomicBool) {
        if !began.swap(true, Ordering::Relaxed) {
            self.observer.counting(Work::Fetching);
        }
        self.count_download(download);
    }

    fn downloaded(&self, began: &AtomicBool) {
        if began.load(Ordering::Relaxed) {
            self.observer.step_done();
        }
    }

    /// Fetches the chosen hub model when it is not installed yet (`gitmem model fetch`).
    pub fn fetch_model(&self) -> ModelFetch {
        let began = AtomicBool::new(false);
        let fetch = self.app.fetch_model(&|d| self.show_download(d, &began));
        self.downloaded(&began);
        fetch
    }

    /// Installs a model and embeds the notes with it.
    pub fn install_model(&self, source: &str, name: Option<&str>) -> Result<ModelChanged> {
        let began = AtomicBool::new(false);
        let model = self
            .app
            .install_model(source, name, &|d| self.show_download(d, &began));
        self.downloaded(&began);
        self.embedded_with(model?)
    }

    /// Makes an installed model the default and embeds the notes with it.
    pub fn use_model(&self, name: &str) -> Result<ModelChanged> {
        let model = self.app.use_model(name)?;
        self.embedded_with(model)
    }

    /// Distils a static model from `from` (default: the default model), makes it the default
    /// and embeds the notes with it.
    pub fn distill_model(&self, from: Option<&str>, name: Option<&str>) -> Result<ModelChanged> {
        self.observer.counting(Work::Distilling);
        let model = self.app.distill_model(from, name, &|done, total| {
            self.observer.counted(done, total)
        });
        self.observer.step_done();
        self.embedded_with(model?)
    }

    fn embedded_with(&self, model: ModelInfo) -> Result<ModelChanged> {
        Ok(ModelChanged {
            model,
            embedded: self.embed()?,
        })
    }
}

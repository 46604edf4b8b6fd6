//! Change notifications for connected clients: `notifications/resources/list_changed` when
//! notes appear or disappear, `notifications/resources/updated` for the note resources a client
//! subscribed to. Any commit to the graph, by this process or another on the same root (a
//! watcher, a CLI command), counts; a poll of the graph's transaction id every half second
//! finds it without a hook in the writers. Stateless HTTP requests (protocol 2026-07-28) have no
//! session to notify.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::Peer;
use rmcp::RoleServer;

use super::tools::ToolCtx;
use engine::{App, Outcome};

/// How often the graph is looked at.
const POLL: Duration = Duration::from_millis(500);

/// One client session: where to send, and what it subscribed to (URI -> last update seen).
pub struct Session {
    peer: Mutex<Option<Peer<RoleServer>>>,
    subscriptions: Mutex<HashMap<String, Option<i64>>>,
}

impl Session {
    pub fn set_peer(&self, peer: Peer<RoleServer>) {
        *self.peer.lock().expect("peer") = Some(peer);
    }

    pub fn subscribe(&self, ctx: &ToolCtx, uri: &str) {
        let stamp = note_stamp(ctx, uri);
        self.subscriptions
            .lock()
            .expect("subscriptions")
            .insert(uri.to_string(), stamp);
    }

    pub fn unsubscribe(&self, uri: &str) {
        self.subscriptions
            .lock()
            .expect("subscriptions")
            .remove(uri);
    }
}

/// The sessions of one server process.
#[derive(Default)]
pub struct Notifier {
    sessions: Mutex<Vec<Weak<Session>>>,
}

/// The last update of the note a `memory://` URI names, or None when there is none.
fn note_stamp(ctx: &ToolCtx, uri: &str) -> Option<i64> {
    match ctx.app.fetch_document(&ctx.choice_of(None), uri) {
        Ok(Outcome::Done(file)) => Some(file.note.updated_ms),
        _ => None,
    }
}

impl Notifier {
    /// A new session, notified until it is dropped.
    pub fn session(&self) -> Arc<Session> {
        let session = Arc::new(Session {
            peer: Mutex::new(None),
            subscriptions: Mutex::new(HashMap::new()),
        });
        let mut sessions = self.sessions.lock().expect("sessions");
        sessions.retain(|s| s.strong_count() > 0);
        sessions.push(Arc::downgrade(&session));
        session
    }

    /// The sessions there is someone to notify in: a client that has initialized. A stateless
    /// HTTP request's handler never has one, and while requests keep coming some handler is
    /// always alive; counting them made every graph change cost a read of every note's stamp.
    fn live(&self) -> Vec<Arc<Session>> {
        let mut sessions = self.sessions.lock().expect("sessions");
        sessions.retain(|s| s.strong_count() > 0);
        sessions
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|s| s.peer.lock().expect("peer").is_some())
            .collect()
    }

    /// Watches the graph for as long as the server runs.
    pub fn start(self: &Arc<Self>, app: Arc<App>, ctx: ToolCtx) {
        let notifier = self.clone();
        tokio::spawn(async move {
            let mut generation = app.graph_generation();
            let first = app.clone();
            let mut stamps: Option<HashMap<String, i64>> =
                tokio::task::spawn_blocking(move || first.note_stamps().ok())
                    .await
                    .ok()
                    .flatten();
            loop {
                tokio::time::sleep(POLL).await;
                let sessions = notifier.live();
                let now = app.graph_generation();
                if sessions.is_empty() || now == generation {
                    generation = now;
                    continue;
                }
                generation = now;
                let (app, ctx, before) = (app.clone(), ctx.clone(), stamps.take());
                let checked = tokio::task::spawn_blocking(move || {
                    let after = app.note_stamps().unwrap_or_default();
                    let listed_changed = before.as_ref().is_none_or(|before| {
                        before.len() != after.len() || before.keys().any(|k| !after.contains_key(k))
                    });
                    let updated: Vec<(Arc<Session>, String)> = sessions
                        .iter()
                        .flat_map(|session| {
                            let mut subscriptions =
                                session.subscriptions.lock().expect("subscriptions");
                            let mut changed = Vec::new();
                            for (uri, seen) in subscriptions.iter_mut() {
                                let stamp = note_stamp(&ctx, uri);
                                if stamp != *seen {
                                    *seen = stamp;
                                    changed.push((session.clone(), uri.clone()));
                                }
                            }
                            changed
                        })
                        .collect();
                    (after, listed_changed, sessions, updated)
                })
                .await;
                let Ok((after, listed_changed, sessions, updated)) = checked else {
                    continue;
                };
                stamps = Some(after);
                for session in &sessions {
                    let peer = session.peer.lock().expect("peer").clone();
                    if let (Some(peer), true) = (peer, listed_changed) {
                        let _ = peer.notify_resource_list_changed().await;
                    }
                }
                for (session, uri) in updated {
                    let peer = session.peer.lock().expect("peer").clone();
                    if let Some(peer) = peer {
                        let _ = peer
                            .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                            .await;
                    }
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_sessions_with_a_client_to_notify_are_watched_for() {
        let notifier = Notifier::default();
        let _stateless = notifier.session();
        assert!(
            notifier.live().is_empty(),
            "a handler that never initialized has no one to notify"
        );
    }
}

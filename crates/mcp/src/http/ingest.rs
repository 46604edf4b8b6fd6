//! `POST /ingest[?project=NAME]`: JSON Lines of memory records, answered 207 with each line's
//! outcome (`engine::memory::ingest`, `render::memory::ingested`). It sits behind the guard
//! like `/mcp` (bearer token, body limit) and needs a token that may write.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};

use super::guard::refusal;
use super::HttpState;
use auth::Grant;
use engine::error::UserError;
use engine::ServiceError;
use render::memory::{counted_refusal, error_code, ingested, record_code, ErrorCode};

pub(super) async fn ingest(
    State(state): State<Arc<HttpState>>,
    grant: Option<Extension<Grant>>,
    Query(query): Query<HashMap<String, String>>,
    body: Bytes,
) -> Response {
    let ctx = match super::context_for(&state, grant.as_ref().map(|g| &g.0)) {
        Ok(ctx) => ctx,
        Err(refused) => return *refused,
    };
    if ctx.read_only {
        return refusal(
            StatusCode::FORBIDDEN,
            "insufficient_scope",
            "this token may only read; ingesting needs one that may write",
        );
    }
    let choice = ctx.choice_of(query.get("project").map(String::as_str));
    let app = state.app.clone();
    // The same client as this token's stateless `/mcp` requests: its next search sees these.
    let horizon = state.horizons.of(grant
        .as_ref()
        .map(|g| g.0.name.as_str())
        .unwrap_or_default());
    let done =
        tokio::task::spawn_blocking(move || horizon.scope(|| app.memory_ingest(&choice, &body)))
            .await;
    match done {
        Ok(Ok(report)) => {
            let refusals = report
                .records
                .iter()
                .filter_map(|r| counted_refusal(record_code(&r.outcome)?.as_str()));
            refusals.for_each(|refusal| state.app.metrics().refused(refusal));
            (StatusCode::MULTI_STATUS, Json(ingested(&report))).into_response()
        }
        Ok(Err(e @ ServiceError::User(UserError::ProjectNotAllowed { .. }))) => {
            refusal(StatusCode::FORBIDDEN, "insufficient_scope", &e.to_string())
        }
        Ok(Err(e)) if e.is_user_error() => {
            let status = match error_code(&e) {
                ErrorCode::NotFound => StatusCode::NOT_FOUND,
                _ => StatusCode::BAD_REQUEST,
            };
            refusal(status, "invalid_request", &e.to_string())
        }
        Ok(Err(e)) => {
            tracing::error!("an ingest failed: {e}");
            refusal(
                StatusCode::INTERNAL_SERVER_ERROR,
                "server_error",
                &format!("nothing was ingested: {e}"),
            )
        }
        Err(e) => {
            tracing::error!("an ingest panicked: {e}");
            refusal(
                StatusCode::INTERNAL_SERVER_ERROR,
                "server_error",
                "nothing was ingested",
            )
        }
    }
}

//! The HTTP face of the built-in OAuth authorization server (`auth::oauth`): discovery
//! documents, registration, the approval page, the token and revocation endpoints. Each
//! route parses its request, calls the authorization server off the async threads, and answers
//! what `render::oauth` renders, with the status and cache headers the RFCs ask for.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Form, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use base64::Engine;

use super::guard::refusal;
use super::HttpState;
use auth::oauth::{
    Approval, AuthorizationRequest, AuthorizeError, OAuthError, OAuthErrorCode, OAuthServer,
    RegistrationRequest,
};
use render;

fn oauth_of(state: &HttpState) -> Result<Arc<OAuthServer>, Box<Response>> {
    state.credentials.oauth.clone().ok_or_else(|| {
        Box::new(refusal(
            StatusCode::NOT_FOUND,
            "not_found",
            "this server runs without its OAuth authorization server (--no-oauth)",
        ))
    })
}

fn oauth_error(error: OAuthError) -> Response {
    let status = match error.code {
        OAuthErrorCode::InvalidClient => StatusCode::UNAUTHORIZED,
        OAuthErrorCode::ServerError => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::BAD_REQUEST,
    };
    (
        status,
        [(header::CACHE_CONTROL, "no-store")],
        Json(render::oauth::error(&error)),
    )
        .into_response()
}

/// Client credentials from `Authorization: Basic` (client_secret_basic).
fn basic_credentials(headers: &HeaderMap) -> Option<(String, String)> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, encoded) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (id, secret) = text.split_once(':')?;
    // Form encoding (RFC 6749 section 2.3.1): `+` is a space, a literal plus is `%2B`.
    let decode = |part: &str| note::parse::percent_decode(&part.replace('+', " "));
    Some((decode(id), decode(secret)))
}

pub(super) async fn protected_resource_metadata(State(state): State<Arc<HttpState>>) -> Response {
    match &state.resource_metadata {
        Some(metadata) => Json(metadata.clone()).into_response(),
        None => refusal(
            StatusCode::NOT_FOUND,
            "not_found",
            "this server runs without OAuth (--no-oauth)",
        ),
    }
}

pub(super) async fn authorization_server_metadata(State(state): State<Arc<HttpState>>) -> Response {
    match oauth_of(&state) {
        Ok(oauth) => Json(render::oauth::authorization_server_metadata(&oauth)).into_response(),
        Err(response) => *response,
    }
}

pub(super) async fn register(
    State(state): State<Arc<HttpState>>,
    body: axum::body::Bytes,
) -> Response {
    let request: RegistrationRequest = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(e) => {
            return oauth_error(OAuthError::new(
                OAuthErrorCode::InvalidClientMetadata,
                format!("the registration is not valid JSON: {e}"),
            ))
        }
    };
    let (client, secret) = match on_oauth(&state, move |oauth| oauth.register(request)).await {
        Ok(registered) => registered,
        Err(response) => return *response,
    };
    (
        StatusCode::CREATED,
        [(header::CACHE_CONTROL, "no-store")],
        Json(render::oauth::registration(&client, secret.as_deref())),
    )
        .into_response()
}

fn html(status: StatusCode, page: String) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
            (header::X_FRAME_OPTIONS, "DENY"),
        ],
        page,
    )
        .into_response()
}

fn redirect(to: &str) -> Response {
    match HeaderValue::from_str(to) {
        Ok(location) => (
            StatusCode::FOUND,
            [
                (header::LOCATION, location),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            ],
        )
            .into_response(),
        Err(_) => html(
            StatusCode::BAD_REQUEST,
            render::oauth::error_page("the redirect URI cannot be sent back"),
        ),
    }
}

/// Checks an authorization request; the page, redirect or error it leads to.
async fn checked_request(
    oauth: &Arc<OAuthServer>,
    params: HashMap<String, String>,
) -> Result<AuthorizationRequest, Box<Response>> {
    let oauth = oauth.clone();
    let checked = tokio::task::spawn_blocking(move || oauth.check_authorization(&params))
        .await
        .map_err(|e| {
            Box::new(html(
                StatusCode::INTERNAL_SERVER_ERROR,
                render::oauth::error_page(&e.to_string()),
            ))
        })?;
    checked.map_err(|error| {
        Box::new(match error {
            AuthorizeError::Page(message) => {
                html(StatusCode::BAD_REQUEST, render::oauth::error_page(&message))
            }
            AuthorizeError::Redirect(to) => redirect(&to),
        })
    })
}

/// `GET /oauth/authorize`: the approval page.
pub(super) async fn authorize(
    State(state): State<Arc<HttpState>>,
    Query(params): Query<HashMap<String, String>>,
) -> Response {
    let oauth = match oauth_of(&state) {
        Ok(oauth) => oauth,
        Err(response) => return *response,
    };
    match checked_request(&oauth, params).await {
        Ok(request) => html(
            StatusCode::OK,
            render::oauth::approval_page(&request, "/oauth/authorize", None),
        ),
        Err(response) => *response,
    }
}

/// `POST /oauth/authorize`: the owner's answer.
pub(super) async fn approve(
    State(state): State<Arc<HttpState>>,
    Form(mut form): Form<HashMap<String, String>>,
) -> Response {
    let oauth = match oauth_of(&state) {
        Ok(oauth) => oauth,
        Err(response) => return *response,
    };
    let secret = form.remove("secret").unwrap_or_default();
    let approved = form.remove("decision").as_deref() == Some("approve");
    let request = match checked_request(&oauth, form).await {
        Ok(request) => request,
        Err(response) => return *response,
    };
    let asked = request.clone();
    match on_oauth(&state, move |oauth| {
        oauth.approve(&asked, approved, &secret)
    })
    .await
    {
        Ok(Approval::Redirect(to)) => redirect(&to),
        Ok(Approval::Retry(message)) => html(
            StatusCode::UNAUTHORIZED,
            render::oauth::approval_page(&request, "/oauth/authorize", Some(&message)),
        ),
        Err(response) => *response,
    }
}

/// Runs `work` on the authorization server off the async threads; a failure is the OAuth
/// error response.
async fn on_oauth<T: Send + 'static>(
    state: &HttpState,
    work: impl FnOnce(&OAuthServer) -> Result<T, OAuthError> + Send + 'static,
) -> Result<T, Box<Response>> {
    let oauth = oauth_of(state)?;
    match tokio::task::spawn_blocking(move || work(&oauth)).await {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(error)) => Err(Box::new(oauth_error(error))),
        Err(e) => Err(Box::new(oauth_error(OAuthError::new(
            OAuthErrorCode::ServerError,
            e.to_string(),
        )))),
    }
}

/// `POST /oauth/token`.
pub(super) async fn token(
    State(state): State<Arc<HttpState>>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    let basic = basic_credentials(&headers);
    match on_oauth(&state, move |oauth| oauth.token(&form, basic)).await {
        Ok(answer) => (
            StatusCode::OK,
            [
                (header::CACHE_CONTROL, "no-store"),
                (header::PRAGMA, "no-cache"),
            ],
            Json(render::oauth::tokens(&answer)),
        )
            .into_response(),
        Err(response) => *response,
    }
}

/// `POST /oauth/revoke` (RFC 7009): 200 whether or not the token was known.
pub(super) async fn revoke(
    State(state): State<Arc<HttpState>>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    let basic = basic_credentials(&headers);
    match on_oauth(&state, move |oauth| oauth.revoke(&form, basic)).await {
        Ok(()) => StatusCode::OK.into_response(),
        Err(response) => *response,
    }
}

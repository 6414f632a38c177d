//! Who may call what: an optional access token for the scan library, or for
//! every route but the page, the health probes, the metrics and the API
//! description.
//!
//! A client shows the token as `Authorization: Bearer TOKEN` or in the
//! `boardscan_token` cookie (the page sets it, so that thumbnails and streams,
//! which cannot carry headers, work too).

use actix_web::{
    body::{EitherBody, MessageBody},
    dev::{ServiceRequest, ServiceResponse},
    http::header,
    middleware::Next,
    web, Error, ResponseError,
};

use super::{ApiError, AppState};

/// The cookie the page stores the token in.
pub const TOKEN_COOKIE: &str = "boardscan_token";

/// What the access token protects.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum TokenScope {
    /// The scan library, `/api/v1/scans…` (listing, thumbnails, corrections, deletes, exports) and the piece sets learnt into it, `/api/v1/sets…`.
    #[default]
    Library,
    /// Every route except the page, `/api/v1/health…`, `/metrics` and `/openapi.json`.
    All,
}

/// The service's access rule: no token (everything open), or a token and what it guards.
#[derive(Clone, Debug, Default)]
pub struct Access {
    token: Option<String>,
    scope: TokenScope,
}

impl Access {
    /// The rule for `token` over `scope`; an empty token counts as none.
    pub fn new(token: Option<&str>, scope: TokenScope) -> Self {
        let token = token.map(str::trim).filter(|t| !t.is_empty());
        Self {
            token: token.map(str::to_string),
            scope,
        }
    }

    /// Whether a token is set.
    pub fn has_token(&self) -> bool {
        self.token.is_some()
    }

    /// Whether a request for `path` needs the token under this rule.
    pub fn guards(&self, path: &str) -> bool {
        if self.token.is_none() {
            return false;
        }
        match self.scope {
            TokenScope::Library => under(path, "/api/v1/scans") || under(path, "/api/v1/sets"),
            TokenScope::All => {
                path.starts_with("/api/")
                    && !under(path, "/api/v1/health")
                    && path != "/openapi.json"
            }
        }
    }

    /// Whether `presented` is the token (compared in time independent of where they differ).
    fn accepts(&self, presented: &str) -> bool {
        let Some(token) = &self.token else {
            return true;
        };
        let (a, b) = (token.as_bytes(), presented.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }

    /// Whether the request shows the token, as a bearer header or the page's cookie.
    fn admits(&self, request: &ServiceRequest) -> bool {
        let bearer = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "))
            .map(str::trim);
        if let Some(presented) = bearer {
            return self.accepts(presented);
        }
        request
            .cookie(TOKEN_COOKIE)
            .is_some_and(|cookie| self.accepts(cookie.value()))
    }

    /// The warning to log at startup when the service is open to others, if it is.
    pub fn exposure_warning(&self, bind: std::net::SocketAddr, library: bool) -> Option<String> {
        if bind.ip().is_loopback() {
            return None;
        }
        match (&self.token, self.scope) {
            (None, _) if library => Some(format!(
                "boardscan listens on {bind} with no access token: anyone who reaches this port \
                 can list, correct and delete every kept scan. Set BOARDSCAN_ACCESS_TOKEN \
                 (--access-token), or run with --no-library"
            )),
            (None, _) | (Some(_), TokenScope::Library) => Some(format!(
                "boardscan listens on {bind}: recognition and analysis are open to anyone who \
                 reaches this port (--token-scope all guards them with the access token)"
            )),
            (Some(_), TokenScope::All) => None,
        }
    }
}

/// Whether `path` is `prefix` or below it.
fn under(path: &str, prefix: &str) -> bool {
    path.strip_prefix(prefix)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Middleware: answers 401 `unauthorized` to a request the access rule
/// guards that does not show the token.
pub async fn guard(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, Error> {
    // The path routing sees (percent-decoded), not the raw one: `/api/v1/%73cans` is the library.
    let path = request.match_info().as_str();
    let refused = request
        .app_data::<web::Data<AppState>>()
        .is_some_and(|state| state.access.guards(path) && !state.access.admits(&request));
    if refused {
        let response = ApiError::Unauthorized.error_response();
        return Ok(request.into_response(response).map_into_right_body());
    }
    Ok(next.call(request).await?.map_into_left_body())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_scope_guards_only_the_library() {
        let access = Access::new(Some("s3cret"), TokenScope::Library);
        assert!(access.guards("/api/v1/scans"));
        assert!(access.guards("/api/v1/scans/3/boards/0/thumbnail.png"));
        assert!(!access.guards("/api/v1/scansx"));
        assert!(access.guards("/api/v1/sets") && access.guards("/api/v1/sets/club"));
        assert!(!access.guards("/api/v1/recognize"));
        assert!(!access.guards("/"));
    }

    #[test]
    fn all_scope_leaves_the_page_probes_and_description_open() {
        let access = Access::new(Some("s3cret"), TokenScope::All);
        for open in [
            "/",
            "/static/app.js",
            "/api/v1/health/ready",
            "/openapi.json",
            "/metrics",
        ] {
            assert!(!access.guards(open), "{open}");
        }
        for guarded in [
            "/api/v1/recognize",
            "/api/v1/analyze/stream",
            "/api/v1/scans",
        ] {
            assert!(access.guards(guarded), "{guarded}");
        }
    }

    #[test]
    fn no_token_guards_nothing_and_the_token_must_match_exactly() {
        assert!(!Access::new(None, TokenScope::All).guards("/api/v1/scans"));
        assert!(!Access::new(Some("  "), TokenScope::All).has_token());
        let access = Access::new(Some("s3cret"), TokenScope::Library);
        assert!(access.accepts("s3cret"));
        assert!(!access.accepts("s3cre"));
        assert!(!access.accepts("s3cret "));
        assert!(!access.accepts("S3cret"));
    }

    #[test]
    fn only_a_non_loopback_bind_is_warned_about() {
        let open = Access::default();
        let local = "127.0.0.1:8080".parse().unwrap();
        let any = "0.0.0.0:8080".parse().unwrap();
        assert_eq!(open.exposure_warning(local, true), None);
        assert!(open
            .exposure_warning(any, true)
            .unwrap()
            .contains("delete every kept scan"));
        let guarded = Access::new(Some("t"), TokenScope::All);
        assert_eq!(guarded.exposure_warning(any, true), None);
    }
}

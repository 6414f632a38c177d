//! The web page, served from files built into the binary.
//!
//! The page and its scripts link their assets with `?v=<hash of every asset>`,
//! so those can be cached for long; the page itself is revalidated each time.
//! The scripts are ES modules importing each other (`./board.js?v={{asset-version}}`);
//! the stamp is filled in when they are served.

use std::{
    hash::{DefaultHasher, Hash, Hasher},
    sync::LazyLock,
};

use actix_web::{http::header, web, HttpResponse};

const INDEX_HTML: &str = include_str!("static/index.html");

const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";

/// Every asset under `/static/`: its path there, content type and content.
const ASSETS: &[(&str, &str, &str)] = &[
    ("i18n.js", JS, include_str!("static/i18n.js")),
    ("share.js", JS, include_str!("static/share.js")),
    ("app.js", JS, include_str!("static/app.js")),
    ("api.js", JS, include_str!("static/api.js")),
    ("board.js", JS, include_str!("static/board.js")),
    ("line.js", JS, include_str!("static/line.js")),
    ("analysis.js", JS, include_str!("static/analysis.js")),
    ("coach.js", JS, include_str!("static/coach.js")),
    (
        "analysis-board.js",
        JS,
        include_str!("static/analysis-board.js"),
    ),
    ("access.js", JS, include_str!("static/access.js")),
    ("library.js", JS, include_str!("static/library.js")),
    ("sets.js", JS, include_str!("static/sets.js")),
    ("game.js", JS, include_str!("static/game.js")),
    ("style.css", CSS, include_str!("static/style.css")),
    // chess.js 1.4.0 (BSD-2-Clause, licence beside it): legal moves in the browser.
    (
        "vendor/chess.js",
        JS,
        include_str!("static/vendor/chess.js"),
    ),
    (
        "vendor/chess.js.LICENSE",
        "text/plain; charset=utf-8",
        include_str!("static/vendor/chess.js.LICENSE"),
    ),
];

const STAMP: &str = "{{asset-version}}";

/// The hash of every asset, as 16 hex digits.
static VERSION: LazyLock<String> = LazyLock::new(|| {
    let mut hasher = DefaultHasher::new();
    ASSETS.hash(&mut hasher);
    format!("{:016x}", hasher.finish())
});

/// The page with its asset links stamped.
static INDEX: LazyLock<String> = LazyLock::new(|| INDEX_HTML.replace(STAMP, &VERSION));

/// The assets with their import links stamped, in the order of [`ASSETS`].
static STAMPED: LazyLock<Vec<String>> = LazyLock::new(|| {
    ASSETS
        .iter()
        .map(|(_, _, body)| body.replace(STAMP, &VERSION))
        .collect()
});

/// Registers the page's routes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(index))
        .route("/static/{path:.*}", web::get().to(static_asset));
}

fn asset(content_type: &'static str, cache: &'static str, body: String) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(content_type)
        .insert_header((header::CACHE_CONTROL, cache))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(body)
}

async fn index() -> HttpResponse {
    asset("text/html; charset=utf-8", "no-cache", INDEX.clone())
}

async fn static_asset(path: web::Path<String>) -> HttpResponse {
    match ASSETS
        .iter()
        .position(|(name, _, _)| *name == path.as_str())
    {
        Some(i) => asset(ASSETS[i].1, "public, max-age=86400", STAMPED[i].clone()),
        None => HttpResponse::NotFound()
            .content_type("text/plain; charset=utf-8")
            .body("no such file"),
    }
}

#[cfg(test)]
mod tests {
    use actix_web::{body::to_bytes, http::StatusCode, test, App};

    use super::*;

    async fn get(path: &str) -> (StatusCode, String, String, String) {
        let app = test::init_service(App::new().configure(routes)).await;
        let response =
            test::call_service(&app, test::TestRequest::get().uri(path).to_request()).await;
        let status = response.status();
        let header = |name| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string()
        };
        let (content_type, cache) = (header(header::CONTENT_TYPE), header(header::CACHE_CONTROL));
        let body = to_bytes(response.into_body()).await.unwrap();
        (
            status,
            content_type,
            cache,
            String::from_utf8(body.to_vec()).unwrap(),
        )
    }

    #[actix_web::test]
    async fn index_is_html_linking_stamped_assets() {
        let (status, content_type, cache, body) = get("/").await;
        assert_eq!(status, StatusCode::OK);
        assert!(content_type.starts_with("text/html"), "{content_type}");
        assert_eq!(cache, "no-cache");
        assert!(body.contains("id=\"file-input\""));
        assert!(body.contains(&format!("/static/app.js?v={}", *VERSION)));
        assert!(!body.contains(STAMP));
    }

    #[actix_web::test]
    async fn assets_have_their_content_types_and_stamped_imports() {
        for (name, content_type, content) in ASSETS {
            let path = format!("/static/{name}");
            let (status, got_type, cache, body) = get(&path).await;
            assert_eq!(status, StatusCode::OK, "{path}");
            assert_eq!(got_type, *content_type, "{path}");
            assert!(cache.contains("max-age"), "{path}: {cache}");
            assert!(!body.contains(STAMP), "{path}");
            assert_eq!(body, content.replace(STAMP, &VERSION));
        }
        let (_, _, _, app) = get("/static/app.js").await;
        assert!(app.contains(&format!("./analysis-board.js?v={}", *VERSION)));
    }

    #[actix_web::test]
    async fn unknown_assets_are_not_found() {
        for path in ["/static/nope.js", "/static/../Cargo.toml", "/static/"] {
            let (status, ..) = get(path).await;
            assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        }
    }

    #[actix_web::test]
    async fn page_fetches_nothing_from_other_hosts() {
        for text in std::iter::once(INDEX_HTML).chain(ASSETS.iter().map(|(_, _, body)| *body)) {
            for needle in [
                "src=\"http",
                "href=\"http",
                "url(http",
                "@import",
                "fetch('http",
                "fetch(\"http",
                "EventSource('http",
                "from 'http",
            ] {
                assert!(!text.contains(needle), "found {needle}");
            }
        }
    }
}

//! The web page, served from files built into the binary.
//!
//! The page links its script and style sheet with `?v=<hash of their content>`,
//! so those can be cached for long; the page itself is revalidated each time.

use std::{
    hash::{DefaultHasher, Hash, Hasher},
    sync::LazyLock,
};

use actix_web::{http::header, web, HttpResponse};

const INDEX_HTML: &str = include_str!("static/index.html");
const APP_JS: &str = include_str!("static/app.js");
const LIBRARY_JS: &str = include_str!("static/library.js");
const STYLE_CSS: &str = include_str!("static/style.css");

/// The page with its asset links stamped with the assets' content hash.
static INDEX: LazyLock<String> = LazyLock::new(|| {
    let mut hasher = DefaultHasher::new();
    (APP_JS, LIBRARY_JS, STYLE_CSS).hash(&mut hasher);
    INDEX_HTML.replace("{{asset-version}}", &format!("{:016x}", hasher.finish()))
});

/// Registers the page's routes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(index))
        .route("/static/app.js", web::get().to(app_js))
        .route("/static/library.js", web::get().to(library_js))
        .route("/static/style.css", web::get().to(style_css));
}

fn asset(content_type: &'static str, cache: &'static str, body: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(content_type)
        .insert_header((header::CACHE_CONTROL, cache))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(body)
}

async fn index() -> HttpResponse {
    asset("text/html; charset=utf-8", "no-cache", INDEX.as_str())
}

async fn app_js() -> HttpResponse {
    asset(
        "text/javascript; charset=utf-8",
        "public, max-age=86400",
        APP_JS,
    )
}

async fn library_js() -> HttpResponse {
    asset(
        "text/javascript; charset=utf-8",
        "public, max-age=86400",
        LIBRARY_JS,
    )
}

async fn style_css() -> HttpResponse {
    asset(
        "text/css; charset=utf-8",
        "public, max-age=86400",
        STYLE_CSS,
    )
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
        assert!(body.contains("/static/app.js?v="));
        assert!(!body.contains("{{asset-version}}"));
    }

    #[actix_web::test]
    async fn assets_have_their_content_types() {
        for (path, expected, content) in [
            ("/static/app.js", "text/javascript", APP_JS),
            ("/static/library.js", "text/javascript", LIBRARY_JS),
            ("/static/style.css", "text/css", STYLE_CSS),
        ] {
            let (status, content_type, cache, body) = get(path).await;
            assert_eq!(status, StatusCode::OK, "{path}");
            assert!(content_type.starts_with(expected), "{path}: {content_type}");
            assert!(cache.contains("max-age"), "{path}: {cache}");
            assert_eq!(body, content);
        }
    }

    #[actix_web::test]
    async fn page_fetches_nothing_from_other_hosts() {
        for text in [INDEX_HTML, APP_JS, LIBRARY_JS, STYLE_CSS] {
            for needle in [
                "src=\"http",
                "href=\"http",
                "url(http",
                "@import",
                "fetch('http",
                "fetch(\"http",
            ] {
                assert!(!text.contains(needle), "found {needle}");
            }
        }
    }
}

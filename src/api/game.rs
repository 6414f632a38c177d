//! `POST /api/v1/game`: a PGN in, one game analysed move by move, and
//! `POST /api/v1/game/stream`: the same as Server-Sent Events, one `move`
//! event per analysed move, then `done`.

use std::{
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    time::Duration,
};

use actix_web::{error::JsonPayloadError, web, web::Bytes, HttpResponse};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::{error::ErrorBody, stream::event_stream, ApiError, AppState, ServiceConfig};
use crate::{
    analysis::AnalysisLimits,
    analysis::OURS,
    games::{
        analyse::{analyse_game, fen_of, AnalyseOptions, Budget, GameAnalysis, MoveReport},
        annotate::annotated_pgn,
        command::DEFAULT_NODES,
        pgn::{read_pgn, Game, GameErrorKind, PgnError, ReadLimits},
        GamesError,
    },
    notation::lang::{Lang, MoveStyle},
};

/// Largest PGN text a request may carry, in bytes.
pub const MAX_PGN_BYTES: usize = 1024 * 1024;
/// Largest request body of these routes (the PGN escaped in JSON).
const MAX_BODY_BYTES: usize = 2 * MAX_PGN_BYTES;
/// Games of the text read at most (one is analysed).
pub const MAX_GAMES: usize = 1_000;
/// Plies of the game analysed at most; later moves are not read.
pub const MAX_PLIES: usize = 600;
/// Most nodes a request may give each position.
pub const MAX_NODES: u64 = 5_000_000;
/// Longest search of one position, in milliseconds (also under the service's `--max-movetime-ms`).
pub const MAX_GAME_MOVETIME_MS: u64 = 2_000;

/// The request body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GameRequest {
    /// PGN text: one game or many (at most 1 MiB and 1000 games).
    pub pgn: String,
    /// Which game of the text to analyse, from 1 (default 1).
    pub game: Option<usize>,
    /// Search time per position, in milliseconds (at most 2000).
    pub movetime_ms: Option<u64>,
    /// Nodes per position (default 150000 when no budget is named; at most 5000000).
    pub nodes: Option<u64>,
    /// Depth per position (at most the service's `--max-depth`).
    pub depth: Option<u32>,
    /// An engine of `GET /api/v1/engines`; default: ours (`boardscan`).
    pub engine: Option<String>,
    /// Language of the piece letters written, and preferred when reading (default `en`).
    pub lang: Option<Lang>,
    /// Notation of the moves written: `san` (default), `long` or `iccf`.
    pub notation: Option<MoveStyle>,
}

/// The analysis of one game.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GameResponse {
    #[serde(flatten)]
    pub analysis: GameAnalysis,
    /// Games the text holds (up to the limit).
    pub games: usize,
    /// The annotated game as PGN.
    pub annotated_pgn: String,
}

impl From<PgnError> for ApiError {
    fn from(err: PgnError) -> Self {
        ApiError::NotAPgn(err.to_string())
    }
}

impl From<GamesError> for ApiError {
    fn from(err: GamesError) -> Self {
        match err {
            GamesError::Pgn(e) => e.into(),
            GamesError::Game(e) => match *e.kind {
                GameErrorKind::Move(_) => ApiError::IllegalMove(e.to_string()),
                GameErrorKind::Fen { .. } => ApiError::IllegalPosition(e.to_string()),
                GameErrorKind::Variant(_) => ApiError::BadRequest(e.to_string()),
            },
            GamesError::Engine(e) => e.into(),
            GamesError::Recording(e) => e.into(),
            GamesError::Chess960External(_) | GamesError::Input(_) => {
                ApiError::BadRequest(err.to_string())
            }
            GamesError::Coach(_) | GamesError::Io(_) => ApiError::Internal(err.to_string()),
        }
    }
}

/// The JSON body limit of the game routes; a larger body is 413 `game-too-large`.
pub fn json_config() -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(MAX_BODY_BYTES)
        .error_handler(|err, _| match err {
            JsonPayloadError::Overflow { .. } | JsonPayloadError::OverflowKnownLength { .. } => {
                ApiError::GameTooLarge(format!(
                    "the request body is over {MAX_BODY_BYTES} bytes (a PGN may have {MAX_PGN_BYTES})"
                ))
                .into()
            }
            err => ApiError::BadRequest(format!("invalid JSON body: {err}")).into(),
        })
}

/// What a request asks for, checked and bounded.
struct Job {
    game: Game,
    games: usize,
    limits: AnalysisLimits,
    options: AnalyseOptions,
}

fn prepare(
    config: &ServiceConfig,
    state: &AppState,
    request: GameRequest,
) -> Result<Job, ApiError> {
    if request.pgn.len() > MAX_PGN_BYTES {
        return Err(ApiError::GameTooLarge(format!(
            "the PGN is {} bytes; at most {MAX_PGN_BYTES} are analysed",
            request.pgn.len()
        )));
    }
    state.engines.check(request.engine.as_deref())?;
    let lang = request.lang.unwrap_or_default();
    let read = ReadLimits {
        max_bytes: MAX_PGN_BYTES,
        max_games: MAX_GAMES,
        max_plies: MAX_PLIES,
    };
    let mut pgn = read_pgn(&request.pgn, &read, lang)?;
    let games = pgn.games.len();
    let number = request.game.unwrap_or(1);
    if number == 0 || number > games {
        return Err(ApiError::BadRequest(format!(
            "game {number} asked for; the PGN has {games} game(s){}",
            if pgn.stopped.is_some() {
                format!(" (read at most {MAX_GAMES})")
            } else {
                String::new()
            }
        )));
    }
    let game = pgn
        .games
        .swap_remove(number - 1)
        .map_err(GamesError::from)?;
    let engine = request.engine.unwrap_or_else(|| OURS.to_owned());
    if game.chess960 && engine != OURS {
        return Err(GamesError::Chess960External(game.number).into());
    }
    let cap = config.max_movetime_ms.clamp(1, MAX_GAME_MOVETIME_MS);
    let nodes = match (request.movetime_ms, request.nodes, request.depth) {
        (None, None, None) => Some(DEFAULT_NODES),
        (_, nodes, _) => nodes.map(|n| n.clamp(1, MAX_NODES)),
    };
    let depth = request.depth.map(|d| d.clamp(1, config.max_depth));
    let movetime_ms = request.movetime_ms.map(|ms| ms.clamp(1, cap));
    let limits = AnalysisLimits {
        depth,
        // A node or depth budget is still held to the time cap.
        movetime: Some(Duration::from_millis(movetime_ms.unwrap_or(cap))),
        nodes,
        multipv: 1,
        threads: config.search_threads.max(1),
    };
    Ok(Job {
        game,
        games,
        limits,
        options: AnalyseOptions {
            lang,
            style: request.notation.unwrap_or_default(),
            engine,
            budget: Budget {
                movetime_ms,
                nodes,
                depth,
            },
        },
    })
}

fn analyse(
    state: &AppState,
    job: &Job,
    stop: &AtomicBool,
    mut on_move: impl FnMut(&MoveReport) -> bool,
) -> Result<GameResponse, ApiError> {
    let name = Some(job.options.engine.as_str());
    let analysis = analyse_game(
        &job.game,
        &job.options,
        |board| {
            // A fresh flag per position (a finished search sets its flag);
            // `stop` is looked at between moves.
            let analysis = state
                .engines
                .analyze(name, board, &job.limits, |_| {}, &AtomicBool::new(false))
                .map_err(GamesError::from)?;
            state.metrics.analyses([&analysis]);
            Ok::<_, GamesError>(analysis)
        },
        |report| on_move(report) && !stop.load(Ordering::Relaxed),
    )?;
    let annotated = annotated_pgn(&job.game, &analysis, job.options.lang, job.options.style);
    Ok(GameResponse {
        analysis,
        games: job.games,
        annotated_pgn: annotated,
    })
}

#[utoipa::path(
    post,
    path = "/api/v1/game",
    request_body = GameRequest,
    responses(
        (status = 200, description = "The game analysed: per move the evaluations before and after (cp or mate, WDL), the best move and line, the grade, the centipawn loss and accuracy; per side the counts, ACPL and accuracy; the opening; the annotated PGN", body = GameResponse),
        (status = 400, description = "Bad body, a game number the PGN lacks, an illegal move in the game (`illegal-move`, naming game, ply and line), an unknown engine, or a Chess960 game with an external engine", body = ErrorBody),
        (status = 413, description = "PGN over 1 MiB (`game-too-large`)", body = ErrorBody),
        (status = 422, description = "Not a PGN (`not-a-pgn`), or an impossible [FEN]", body = ErrorBody),
        (status = 502, description = "The engine failed", body = ErrorBody),
        (status = 503, description = "Busy", body = ErrorBody),
    )
)]
pub async fn game(
    state: web::Data<AppState>,
    request: web::Json<GameRequest>,
) -> Result<HttpResponse, ApiError> {
    let job = prepare(&state.config, &state, request.into_inner())?;
    let worker = state.clone();
    let response = state
        .run_cpu(move || analyse(&worker, &job, &AtomicBool::new(false), |_| true))
        .await?;
    Ok(HttpResponse::Ok().json(response))
}

/// The first event of a stream: what is about to be analysed.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StreamStart {
    game: usize,
    start_fen: String,
    plies: usize,
}

fn event(name: &str, data: &impl Serialize) -> Bytes {
    let json = serde_json::to_string(data).expect("events serialize");
    Bytes::from(format!("event: {name}\ndata: {json}\n\n"))
}

#[utoipa::path(
    post,
    path = "/api/v1/game/stream",
    request_body = GameRequest,
    responses(
        (status = 200, description = "`text/event-stream`: `event: start` with `{game, startFen, plies}`, `event: move` with a MoveReport as each move is analysed, then `event: done` with the GameResponse, or `event: error` with an ErrorBody; `: keep-alive` comments every second. Closing the connection stops the analysis.", content_type = "text/event-stream", body = MoveReport),
        (status = 400, description = "As `POST /api/v1/game`", body = ErrorBody),
        (status = 413, description = "PGN over 1 MiB (`game-too-large`)", body = ErrorBody),
        (status = 422, description = "Not a PGN (`not-a-pgn`), or an impossible [FEN]", body = ErrorBody),
        (status = 503, description = "Busy", body = ErrorBody),
    )
)]
pub async fn game_stream(
    state: web::Data<AppState>,
    request: web::Json<GameRequest>,
) -> Result<HttpResponse, ApiError> {
    let job = prepare(&state.config, &state, request.into_inner())?;
    let stop = Arc::new(AtomicBool::new(false));
    let (sender, events) = mpsc::channel::<Bytes>(16);
    let _ = sender.try_send(event(
        "start",
        &StreamStart {
            game: job.game.number,
            start_fen: fen_of(&job.game.start, job.game.chess960),
            plies: job.game.moves.len(),
        },
    ));
    let worker = state.clone();
    let job_stop = stop.clone();
    state.spawn_cpu(move || {
        let sent = |report: &MoveReport| sender.blocking_send(event("move", report)).is_ok();
        let last = match analyse(&worker, &job, &job_stop, sent) {
            Ok(response) => event("done", &response),
            Err(err) => event(
                "error",
                &ErrorBody {
                    error: err.to_string(),
                    code: err.code(),
                },
            ),
        };
        let _ = sender.blocking_send(last);
    })?;
    Ok(event_stream(events, stop))
}

/// Registers the game routes with their larger body limit.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/api/v1/game")
            .app_data(json_config())
            .route(web::post().to(game)),
    )
    .service(
        web::resource("/api/v1/game/stream")
            .app_data(json_config())
            .route(web::post().to(game_stream)),
    );
}

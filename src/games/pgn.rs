//! Reading PGN: one game or many, with tags, comments, NAGs, variations and
//! a starting position, moves in any language the lenient move reader knows.
//!
//! Leniency rules:
//! - the text may be UTF-8 or Latin-1 (old PGN files often are); text with
//!   NUL bytes is refused as not a PGN ([`decode`]);
//! - tag pairs `[Name "value"]` (with `\"` and `\\` escapes); a malformed
//!   tag line is skipped with a warning;
//! - comments `{ … }` (kept, each cut to [`MAX_COMMENT_CHARS`]) and `;` to
//!   the end of the line; lines starting with `%` are skipped;
//! - move numbers (`12.`, `12...`, `12.e4`, or a bare `12`) are ignored and
//!   not checked;
//! - NAGs `$n` and the suffixes `! ? !! ?? !? ?!` (attached or standing
//!   alone) become NAGs 1 to 6; the symbols `= += =+ +/= =/+ +/- -/+ +- -+ ∞`
//!   become their NAGs;
//! - moves are read by [`parse_move_as`]: SAN or long algebraic in any
//!   language (the preferred one first), figurines, UCI or ICCF numbers;
//!   `+`, `#` and `e.p.` are allowed;
//! - variations `( … )` are read against the position before the move they
//!   replace and kept; an illegal move in a variation drops the rest of that
//!   variation with a warning, not the game; variations nested deeper than
//!   [`MAX_VARIATION_DEPTH`] are skipped;
//! - a game ends at its result (`1-0`, `0-1`, `1/2-1/2`, `½-½`, `*`) or where
//!   the next game's tags begin;
//! - `[FEN]` sets the starting position (with or without `[SetUp "1"]`);
//!   `[Variant "Chess960"]` (or `Fischerandom`, `chess 960`) reads its
//!   castling rights as Shredder-FEN (`HAha`) or X-FEN (`KQkq`, the
//!   outermost rook) and castling as `O-O`/`O-O-O` or king takes rook;
//!   other variants are refused.
//!
//! An illegal or unreadable move in a game's main line makes that game an
//! error naming the game, the ply, the move and the line; the other games are
//! read on. The limits ([`ReadLimits`]: bytes, games, plies per game) give a
//! partial result that says where reading stopped.

use std::{borrow::Cow, fmt};

use cozy_chess::{Board, Color, Move, Rank, Square};

use crate::notation::{
    fen::parse_fen,
    lang::{parse_move_as, Lang, ParseMoveError},
};

/// Characters kept of one comment; the rest is cut with `…`.
pub const MAX_COMMENT_CHARS: usize = 2_000;
/// Variations nested deeper than this are skipped.
pub const MAX_VARIATION_DEPTH: usize = 8;

/// How much a read may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadLimits {
    /// Bytes of text read; past them reading stops at the last line break.
    pub max_bytes: usize,
    /// Games read; reading stops after them.
    pub max_games: usize,
    /// Plies of a game's main line kept; later moves are skipped.
    pub max_plies: usize,
}

impl Default for ReadLimits {
    fn default() -> Self {
        ReadLimits {
            max_bytes: 64 * 1024 * 1024,
            max_games: 10_000,
            max_plies: 1_000,
        }
    }
}

/// Why a text could not be read as PGN at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PgnError {
    #[error("not a PGN: {0}")]
    NotPgn(String),
}

/// Why one game could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameError {
    /// The game's number in the text, from 1.
    pub game: usize,
    /// The ply of the main line (from 1) where reading failed, if at a move.
    pub ply: Option<usize>,
    /// The move as the PGN numbers it (`12.` or `12...`), with `ply`.
    pub move_number: Option<String>,
    /// The line of the text, from 1.
    pub line: usize,
    /// Boxed: a move's error names its other readings, and a game's
    /// result should stay small.
    pub kind: Box<GameErrorKind>,
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "game {}", self.game)?;
        match (&self.ply, &self.move_number) {
            (Some(ply), Some(number)) => write!(f, ", ply {ply} ({number})")?,
            (Some(ply), None) => write!(f, ", ply {ply}")?,
            _ => {}
        }
        write!(f, ", line {}: {}", self.line, self.kind)
    }
}

impl std::error::Error for GameError {}

/// What was wrong with a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameErrorKind {
    #[error(transparent)]
    Move(#[from] ParseMoveError),
    #[error("bad [FEN {fen:?}]: {reason}")]
    Fen { fen: String, reason: String },
    #[error("variant {0:?} is not supported (standard chess and Chess960 are)")]
    Variant(String),
}

/// Where a read stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// The text was longer than `limit` bytes; the first `read` were read,
    /// so the last game may be cut short.
    Bytes { limit: usize, read: usize },
    /// `limit` games were read and more text followed.
    Games { limit: usize },
}

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stopped::Bytes { limit, read } => write!(
                f,
                "the text is longer than {limit} bytes: read the first {read} (the last game may be cut short)"
            ),
            Stopped::Games { limit } => {
                write!(f, "stopped after {limit} games (the limit); more followed")
            }
        }
    }
}

/// One move of a game as the PGN gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnMove {
    pub mv: Move,
    /// NAGs given after the move (`$1`, or `!` read as 1).
    pub nags: Vec<u8>,
    /// Comments after the move.
    pub comments: Vec<String>,
    /// Alternatives to this move, each a line from the position before it.
    pub variations: Vec<Vec<PgnMove>>,
}

/// One game.
#[derive(Clone, Debug)]
pub struct Game {
    /// The game's number in the text, from 1.
    pub number: usize,
    /// Tag pairs in the order given.
    pub tags: Vec<(String, String)>,
    /// The starting position.
    pub start: Board,
    /// Whether the game is Chess960 (`[Variant "Chess960"]`).
    pub chess960: bool,
    /// Comments before the first move.
    pub intro: Vec<String>,
    /// The main line.
    pub moves: Vec<PgnMove>,
    /// The termination marker (`1-0`, `0-1`, `1/2-1/2`, `*`), or the
    /// `[Result]` tag when the movetext has none.
    pub result: Option<String>,
    /// The main line went on past [`ReadLimits::max_plies`]; those moves were skipped.
    pub truncated: bool,
    /// What was skipped or repaired while reading.
    pub warnings: Vec<String>,
}

impl Game {
    /// The value of tag `name` (case-sensitive, as PGN names are).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The positions of the main line: the start, then after each move.
    pub fn positions(&self) -> Vec<Board> {
        let mut board = self.start.clone();
        let mut boards = Vec::with_capacity(self.moves.len() + 1);
        boards.push(board.clone());
        for m in &self.moves {
            board.play_unchecked(m.mv);
            boards.push(board.clone());
        }
        boards
    }
}

/// What a read gives: each game or why it could not be read, and where the
/// read stopped early, if it did.
#[derive(Debug)]
pub struct Pgn {
    pub games: Vec<Result<Game, GameError>>,
    pub stopped: Option<Stopped>,
}

/// Bytes to text: UTF-8 (a byte-order mark is dropped), else Latin-1. Text
/// with NUL bytes is binary, not a PGN.
pub fn decode(bytes: &[u8]) -> Result<Cow<'_, str>, PgnError> {
    if bytes.contains(&0) {
        return Err(PgnError::NotPgn(
            "the input is binary (it has NUL bytes)".into(),
        ));
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(Cow::Borrowed(text)),
        Err(_) => Ok(Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect())),
    }
}

/// Reads every game of `text` within `limits`, preferring the piece letters
/// of `lang` where a letter means different pieces in different languages.
pub fn read_pgn(text: &str, limits: &ReadLimits, lang: Lang) -> Result<Pgn, PgnError> {
    let mut stopped = None;
    let mut text = text;
    if text.len() > limits.max_bytes {
        let mut cut = limits.max_bytes;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let cut = text[..cut].rfind('\n').map_or(cut, |i| i + 1);
        text = &text[..cut];
        stopped = Some(Stopped::Bytes {
            limit: limits.max_bytes,
            read: cut,
        });
    }
    let mut reader = Reader {
        lexer: Lexer::new(text),
        peeked: None,
        limits: *limits,
        lang,
        first_game_untagged: false,
    };
    let mut games = Vec::new();
    loop {
        if reader.peek().is_none() {
            break;
        }
        if games.len() == limits.max_games {
            stopped = Some(Stopped::Games {
                limit: limits.max_games,
            });
            break;
        }
        let number = games.len() + 1;
        match reader.game(number) {
            // Stray comments after the last game make no game.
            Some(Ok(game))
                if game.tags.is_empty() && game.moves.is_empty() && game.result.is_none() => {}
            Some(game) => games.push(game),
            None => break,
        }
    }
    if games.is_empty() {
        return Err(PgnError::NotPgn("no tag pair, move or result found".into()));
    }
    // A first game with no tags whose first move is unreadable: prose, not PGN.
    if let Some(Err(GameError {
        game: 1,
        ply: Some(1),
        kind,
        ..
    })) = games.first()
    {
        if let (GameErrorKind::Move(ParseMoveError::Unreadable(text)), true) =
            (kind.as_ref(), reader.first_game_untagged)
        {
            return Err(PgnError::NotPgn(format!(
                "it starts with {text:?}, neither a tag pair nor a move"
            )));
        }
    }
    Ok(Pgn { games, stopped })
}

/// A lexical token, with the line it starts on.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Tag(String, String),
    /// A malformed tag line.
    BadTag(String),
    Comment(String),
    Open,
    Close,
    Nag(u8),
    Result(String),
    /// A move, its suffix NAG split off.
    Symbol(String, Option<u8>),
}

struct Lexer<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
}

impl<'a> Lexer<'a> {
    fn new(text: &'a str) -> Self {
        Lexer {
            text,
            pos: 0,
            line: 1,
        }
    }

    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn bump(&mut self, bytes: usize) -> &'a str {
        let taken = &self.text[self.pos..self.pos + bytes];
        self.line += taken.bytes().filter(|&b| b == b'\n').count();
        self.pos += bytes;
        taken
    }

    /// The rest of the current line (without the line break).
    fn rest_of_line(&mut self) -> &'a str {
        let end = self.rest().find('\n').unwrap_or(self.rest().len());
        self.bump(end)
    }

    fn at_line_start(&self) -> bool {
        self.pos == 0 || self.text.as_bytes()[self.pos - 1] == b'\n'
    }

    /// The next token and its line; `None` at the end.
    fn next(&mut self) -> Option<(Token, usize)> {
        loop {
            let rest = self.rest();
            let skipped = rest.len() - rest.trim_start().len();
            self.bump(skipped);
            let c = self.rest().chars().next()?;
            let line = self.line;
            match c {
                '%' if self.at_line_start() => {
                    self.rest_of_line();
                }
                ';' => {
                    self.bump(1);
                    let text = self.rest_of_line().trim().to_owned();
                    return Some((Token::Comment(cut_comment(&text)), line));
                }
                '{' => {
                    self.bump(1);
                    let end = self.rest().find('}').unwrap_or(self.rest().len());
                    let text = self.bump(end);
                    if !self.rest().is_empty() {
                        self.bump(1);
                    }
                    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
                    return Some((Token::Comment(cut_comment(&text)), line));
                }
                '[' => return Some((self.tag(), line)),
                '(' => {
                    self.bump(1);
                    return Some((Token::Open, line));
                }
                ')' => {
                    self.bump(1);
                    return Some((Token::Close, line));
                }
                '$' => {
                    self.bump(1);
                    let digits = self.rest().bytes().take_while(u8::is_ascii_digit).count();
                    let number = self.bump(digits);
                    match number.parse::<u8>() {
                        Ok(n) => return Some((Token::Nag(n), line)),
                        Err(_) => continue,
                    }
                }
                _ => {
                    let len = self
                        .rest()
                        .find(|c: char| c.is_whitespace() || "{}()[];$".contains(c))
                        .unwrap_or(self.rest().len());
                    let word = self.bump(len.max(c.len_utf8()));
                    if let Some(token) = word_token(word) {
                        return Some((token, line));
                    }
                }
            }
        }
    }

    /// A tag pair at `[`; a malformed one takes the rest of its line.
    fn tag(&mut self) -> Token {
        let start = self.pos;
        let parsed = (|| {
            let rest = self.rest().strip_prefix('[')?;
            let name_start = rest.len() - rest.trim_start().len();
            let after_name = &rest[name_start..];
            let name_len = after_name
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(after_name.len());
            if name_len == 0 {
                return None;
            }
            let name = &after_name[..name_len];
            let after = after_name[name_len..].trim_start_matches([' ', '\t']);
            let body = after.strip_prefix('"')?;
            let mut value = String::new();
            let mut chars = body.char_indices();
            let close = loop {
                let (i, c) = chars.next()?;
                match c {
                    '\\' => {
                        let (_, escaped) = chars.next()?;
                        value.push(escaped);
                    }
                    '"' => break i,
                    '\n' => return None,
                    c => value.push(c),
                }
            };
            let tail = &body[close + 1..];
            let end = tail.trim_start_matches([' ', '\t']).strip_prefix(']')?;
            let consumed = self.rest().len() - end.len();
            Some((name.to_owned(), value, consumed))
        })();
        match parsed {
            Some((name, value, consumed)) => {
                self.bump(consumed);
                Token::Tag(name, value)
            }
            None => {
                let line = self.rest_of_line();
                debug_assert!(self.pos > start);
                Token::BadTag(line.chars().take(80).collect())
            }
        }
    }
}

fn cut_comment(text: &str) -> String {
    if text.chars().count() <= MAX_COMMENT_CHARS {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(MAX_COMMENT_CHARS).collect();
    cut.push('…');
    cut
}

/// The NAG of an annotation symbol standing alone or as a move's suffix.
fn glyph_nag(text: &str) -> Option<u8> {
    Some(match text {
        "!" => 1,
        "?" => 2,
        "!!" => 3,
        "??" => 4,
        "!?" => 5,
        "?!" => 6,
        "□" => 7,
        "=" => 10,
        "∞" => 13,
        "+=" | "+/=" | "⩲" => 14,
        "=+" | "=/+" | "⩱" => 15,
        "+/-" | "±" => 16,
        "-/+" | "∓" => 17,
        "+-" | "+--" => 18,
        "-+" | "--+" => 19,
        _ => return None,
    })
}

/// A word of movetext as a token: a result, a NAG glyph, a move with its
/// suffix; `None` for a move number.
fn word_token(word: &str) -> Option<Token> {
    // A stray closing brace or bracket.
    if word.chars().all(|c| c == '}' || c == ']') {
        return None;
    }
    if matches!(word, "1-0" | "0-1" | "1/2-1/2" | "½-½" | "*") {
        let result = if word == "½-½" { "1/2-1/2" } else { word };
        return Some(Token::Result(result.to_owned()));
    }
    if let Some(nag) = glyph_nag(word) {
        return Some(Token::Nag(nag));
    }
    // A move number, perhaps with the move attached (`12.e4`, `12...e5`).
    let digits = word.bytes().take_while(u8::is_ascii_digit).count();
    let mut word = word;
    if digits > 0 && word[digits..].starts_with('.') {
        word = word[digits..].trim_start_matches(['.', '…']);
    } else if digits == word.len() && digits <= 3 {
        // A bare move number (`1 e4`); four or five digits are ICCF moves.
        return None;
    }
    if word.is_empty() {
        return None;
    }
    let trimmed = word.trim_end_matches(['!', '?']);
    let suffix = &word[trimmed.len()..];
    if trimmed.is_empty() {
        return glyph_nag(suffix).map(Token::Nag);
    }
    Some(Token::Symbol(trimmed.to_owned(), glyph_nag(suffix)))
}

struct Reader<'a> {
    lexer: Lexer<'a>,
    peeked: Option<(Token, usize)>,
    limits: ReadLimits,
    lang: Lang,
    /// Whether the first game had no tag pairs.
    first_game_untagged: bool,
}

/// Where a line of moves ended.
enum LineEnd {
    /// A result token (given), or the text's end or the next game's tags.
    Game(Option<String>),
    /// The `)` of a variation.
    Close,
}

impl Reader<'_> {
    fn peek(&mut self) -> Option<&(Token, usize)> {
        if self.peeked.is_none() {
            self.peeked = self.lexer.next();
        }
        self.peeked.as_ref()
    }

    fn take(&mut self) -> Option<(Token, usize)> {
        self.peek();
        self.peeked.take()
    }

    /// Reads the next game; `None` when only nothing is left.
    fn game(&mut self, number: usize) -> Option<Result<Game, GameError>> {
        let mut tags = Vec::new();
        let mut warnings = Vec::new();
        let mut intro = Vec::new();
        let first_line = self.peek()?.1;
        while let Some((token, line)) = self.peek().cloned() {
            match token {
                Token::Tag(name, value) => {
                    self.take();
                    tags.push((name, value));
                }
                Token::BadTag(text) => {
                    self.take();
                    warnings.push(format!("line {line}: malformed tag skipped: {text}"));
                }
                Token::Comment(text) => {
                    self.take();
                    intro.push(text);
                }
                _ => break,
            }
        }
        if number == 1 {
            self.first_game_untagged = tags.is_empty();
        }
        let tag = |name: &str| {
            tags.iter()
                .find(|(n, _)| n == name)
                .map(|(_, v): &(String, String)| v.clone())
        };
        let error = |kind, line| GameError {
            game: number,
            ply: None,
            move_number: None,
            line,
            kind: Box::new(kind),
        };
        let variant = tag("Variant").unwrap_or_default();
        let lower = variant.to_ascii_lowercase();
        let chess960 = lower.contains("960") || lower.contains("fischer");
        if !(chess960
            || lower.is_empty()
            || lower == "standard"
            || lower == "from position"
            || lower == "normal")
        {
            self.skip_game();
            return Some(Err(error(GameErrorKind::Variant(variant), first_line)));
        }
        let start = match tag("FEN") {
            None if chess960 => Err("a Chess960 game needs its [FEN]".to_owned()),
            None => Ok(Board::default()),
            Some(fen) if chess960 => chess960_board(&fen),
            Some(fen) => parse_fen(&fen).map_err(|e| e.to_string()),
        };
        let start = match start {
            Ok(board) => board,
            Err(reason) => {
                self.skip_game();
                return Some(Err(error(
                    GameErrorKind::Fen {
                        fen: tag("FEN").unwrap_or_default(),
                        reason,
                    },
                    first_line,
                )));
            }
        };
        let mut game = Game {
            number,
            tags,
            start: start.clone(),
            chess960,
            intro,
            moves: Vec::new(),
            result: None,
            truncated: false,
            warnings,
        };
        match self.line(&start, 0, &mut game) {
            Ok((moves, end)) => {
                game.moves = moves;
                game.result = match end {
                    LineEnd::Game(result) => result,
                    LineEnd::Close => None,
                }
                .or_else(|| game.tag("Result").map(str::to_owned));
                Some(Ok(game))
            }
            Err(err) => {
                self.skip_game();
                Some(Err(err))
            }
        }
    }

    /// Skips the rest of a game: to its result or the next game's tags.
    fn skip_game(&mut self) {
        while let Some((token, _)) = self.peek() {
            match token {
                Token::Tag(..) | Token::BadTag(_) => return,
                Token::Result(_) => {
                    self.take();
                    return;
                }
                _ => {
                    self.take();
                }
            }
        }
    }

    /// Skips to the `)` closing the current variation (or the game's end).
    fn skip_variation(&mut self) {
        let mut depth = 0usize;
        while let Some((token, _)) = self.peek() {
            match token {
                Token::Tag(..) | Token::BadTag(_) | Token::Result(_) => return,
                Token::Open => depth += 1,
                Token::Close if depth == 0 => {
                    self.take();
                    return;
                }
                Token::Close => depth -= 1,
                _ => {}
            }
            self.take();
        }
    }

    /// Reads a line of moves from `board`: the main line (`depth` 0) to the
    /// game's end, or a variation to its `)`. An illegal move is an error in
    /// the main line; in a variation it ends the variation with a warning.
    fn line(
        &mut self,
        board: &Board,
        depth: usize,
        game: &mut Game,
    ) -> Result<(Vec<PgnMove>, LineEnd), GameError> {
        let mut board = board.clone();
        let mut before: Option<Board> = None;
        let mut moves: Vec<PgnMove> = Vec::new();
        let mut skipping = false;
        loop {
            let Some((token, line)) = self.peek().cloned() else {
                return Ok((moves, LineEnd::Game(None)));
            };
            match token {
                Token::Tag(..) | Token::BadTag(_) => {
                    return Ok((moves, LineEnd::Game(None)));
                }
                Token::Result(result) => {
                    if depth > 0 {
                        game.warnings
                            .push(format!("line {line}: a variation was not closed"));
                        return Ok((moves, LineEnd::Close));
                    }
                    self.take();
                    return Ok((moves, LineEnd::Game(Some(result))));
                }
                Token::Close => {
                    self.take();
                    if depth > 0 {
                        return Ok((moves, LineEnd::Close));
                    }
                    game.warnings
                        .push(format!("line {line}: stray ')' skipped"));
                }
                Token::Open => {
                    self.take();
                    match (&before, depth < MAX_VARIATION_DEPTH && !skipping) {
                        (Some(from), true) => {
                            let from = from.clone();
                            let (variation, _) = self.line(&from, depth + 1, game)?;
                            if let (Some(last), false) = (moves.last_mut(), variation.is_empty()) {
                                last.variations.push(variation);
                            }
                        }
                        (None, true) => {
                            game.warnings
                                .push(format!("line {line}: a variation before any move skipped"));
                            self.skip_variation();
                        }
                        (_, false) => self.skip_variation(),
                    }
                }
                Token::Comment(text) => {
                    self.take();
                    match moves.last_mut() {
                        Some(last) if !skipping => last.comments.push(text),
                        None if depth == 0 => game.intro.push(text),
                        _ => {}
                    }
                }
                Token::Nag(nag) => {
                    self.take();
                    if let (Some(last), false) = (moves.last_mut(), skipping) {
                        last.nags.push(nag);
                    }
                }
                Token::Symbol(text, suffix) => {
                    self.take();
                    if skipping {
                        continue;
                    }
                    if depth == 0 && moves.len() == self.limits.max_plies {
                        game.truncated = true;
                        skipping = true;
                        continue;
                    }
                    let mv = match self.read_move(&board, &text, game.chess960) {
                        Ok(mv) => mv,
                        Err(err) if depth == 0 => {
                            let ply = moves.len() + 1;
                            return Err(GameError {
                                game: game.number,
                                ply: Some(ply),
                                move_number: Some(move_number(&game.start, ply)),
                                line,
                                kind: Box::new(GameErrorKind::Move(err)),
                            });
                        }
                        Err(err) => {
                            game.warnings.push(format!(
                                "line {line}: variation dropped from its move {text:?} on: {err}"
                            ));
                            self.skip_variation();
                            return Ok((moves, LineEnd::Close));
                        }
                    };
                    before = Some(board.clone());
                    board.play_unchecked(mv);
                    moves.push(PgnMove {
                        mv,
                        nags: suffix.into_iter().collect(),
                        comments: Vec::new(),
                        variations: Vec::new(),
                    });
                }
            }
        }
    }

    fn read_move(&self, board: &Board, text: &str, chess960: bool) -> Result<Move, ParseMoveError> {
        let text = text.trim_end_matches(['+', '#']);
        if chess960 {
            if let Some(mv) = chess960_castling(board, text) {
                return Ok(mv);
            }
        }
        parse_move_as(board, text, self.lang)
    }
}

/// The move number of `ply` (from 1) as PGN writes it: `12.` or `12...`.
pub fn move_number(start: &Board, ply: usize) -> String {
    let first_black = start.side_to_move() == Color::Black;
    let index = ply - 1 + usize::from(first_black);
    let number = start.fullmove_number() as usize + index / 2;
    if index.is_multiple_of(2) {
        format!("{number}.")
    } else {
        format!("{number}...")
    }
}

/// `O-O`/`O-O-O` (any spelling) in Chess960: the king takes its rook on
/// that side.
fn chess960_castling(board: &Board, text: &str) -> Option<Move> {
    let letters: String = text
        .chars()
        .filter(|c| !matches!(c, '-' | '–' | '—'))
        .map(|c| match c {
            '0' | 'o' | 'О' | 'о' => 'O',
            c => c,
        })
        .collect();
    let short = match letters.as_str() {
        "OO" => true,
        "OOO" => false,
        _ => return None,
    };
    let side = board.side_to_move();
    let rights = board.castle_rights(side);
    let file = if short { rights.short } else { rights.long }?;
    let rank = if side == Color::White {
        Rank::First
    } else {
        Rank::Eighth
    };
    let mv = Move {
        from: board.king(side),
        to: Square::new(file, rank),
        promotion: None,
    };
    board.is_legal(mv).then_some(mv)
}

/// A Chess960 start position from Shredder-FEN (`HAha`) or X-FEN (`KQkq`:
/// the outermost rook on that side of the king).
fn chess960_board(fen: &str) -> Result<Board, String> {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    if fields.len() < 4 {
        return Err("a FEN needs at least four fields".into());
    }
    let placement = fields[0];
    let rows: Vec<&str> = placement.split('/').collect();
    let back_rank = |white: bool| -> Vec<char> {
        let row = if white { rows.last() } else { rows.first() };
        let mut squares = Vec::new();
        for c in row.map_or("", |r| *r).chars() {
            match c.to_digit(10) {
                Some(n) => squares.extend(std::iter::repeat_n(' ', n as usize)),
                None => squares.push(c),
            }
        }
        squares
    };
    let mut rights = String::new();
    for c in fields[2].chars() {
        let white = c.is_ascii_uppercase();
        let (king, rook) = if white { ('K', 'R') } else { ('k', 'r') };
        let rank = back_rank(white);
        let king_file = rank.iter().position(|&p| p == king);
        let file = match (c.to_ascii_lowercase(), king_file) {
            ('-', _) => None,
            ('k', Some(k)) => rank.iter().rposition(|&p| p == rook).filter(|&f| f > k),
            ('q', Some(k)) => rank.iter().position(|&p| p == rook).filter(|&f| f < k),
            (f @ 'a'..='h', _) => Some(usize::from(f as u8 - b'a')),
            _ => return Err(format!("bad castling right {c:?}")),
        };
        if let Some(f) = file {
            let letter = char::from(b'a' + f as u8);
            rights.push(if white {
                letter.to_ascii_uppercase()
            } else {
                letter
            });
        }
    }
    if rights.is_empty() {
        rights.push('-');
    }
    let mut full: Vec<&str> = fields.clone();
    full[2] = &rights;
    let joined = match full.len() {
        4 => format!("{} 0 1", full.join(" ")),
        5 => format!("{} 1", full.join(" ")),
        _ => full[..6].join(" "),
    };
    Board::from_fen(&joined, true).map_err(|e| format!("{e:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::uci::move_to_uci;

    fn read(text: &str) -> Pgn {
        read_pgn(text, &ReadLimits::default(), Lang::En).unwrap()
    }

    fn one(text: &str) -> Game {
        let mut pgn = read(text);
        assert_eq!(pgn.games.len(), 1, "{:?}", pgn.games);
        pgn.games.remove(0).unwrap()
    }

    fn uci(start: &Board, moves: &[PgnMove]) -> Vec<String> {
        let mut board = start.clone();
        moves
            .iter()
            .map(|m| {
                let text = move_to_uci(&board, m.mv, false);
                board.play_unchecked(m.mv);
                text
            })
            .collect()
    }

    const OPERA: &str = r#"[Event "Paris"]
[Site "Paris FRA"]
[Date "1858.??.??"]
[White "Paul Morphy"]
[Black "Duke Karl / Count Isouard"]
[Result "1-0"]

1.e4 e5 2.Nf3 d6 3.d4 Bg4 {This is a weak move already.} 4.dxe5 Bxf3 5.Qxf3 dxe5
6.Bc4 Nf6 7.Qb3 Qe7 8.Nc3 c6 9.Bg5 b5 10.Nxb5! cxb5 11.Bxb5+ Nbd7 12.O-O-O Rd8
13.Rxd7 Rxd7 14.Rd1 Qe6 15.Bxd7+ Nxd7 16.Qb8+ Nxb8 17.Rd8# 1-0
"#;

    #[test]
    fn reads_tags_moves_comments_and_suffixes() {
        let game = one(OPERA);
        assert_eq!(game.tag("White"), Some("Paul Morphy"));
        assert_eq!(game.tag("Black"), Some("Duke Karl / Count Isouard"));
        assert_eq!(game.moves.len(), 33);
        assert_eq!(game.result.as_deref(), Some("1-0"));
        assert_eq!(game.moves[5].comments, ["This is a weak move already."]);
        // 10.Nxb5! is ply 19 and carries NAG 1.
        assert_eq!(game.moves[18].nags, [1]);
        let last = game.positions().pop().unwrap();
        assert_eq!(
            last.to_string(),
            "1n1Rkb1r/p4ppp/4q3/4p1B1/4P3/8/PPP2PPP/2K5 b k - 1 17"
        );
        assert!(game.warnings.is_empty(), "{:?}", game.warnings);
    }

    #[test]
    fn many_games_with_and_without_results() {
        let text = format!(
            "{OPERA}\n[Event \"b\"]\n\n1. d4 d5 *\n\n[Event \"c\"]\n1. c4\n[Event \"d\"]\n1. Nf3 Nf6 1/2-1/2\n1. e4 0-1\n"
        );
        let pgn = read(&text);
        let games: Vec<&Game> = pgn.games.iter().map(|g| g.as_ref().unwrap()).collect();
        assert_eq!(games.len(), 5);
        assert_eq!(
            games.iter().map(|g| g.moves.len()).collect::<Vec<_>>(),
            [33, 2, 1, 2, 1]
        );
        assert_eq!(games[1].result.as_deref(), Some("*"));
        // Game c has no result: the next game's tags end it.
        assert_eq!(games[2].result, None);
        assert_eq!(games[2].tag("Event"), Some("c"));
        assert_eq!(games[3].result.as_deref(), Some("1/2-1/2"));
        assert_eq!(games[4].tags, []);
        assert_eq!(
            games.iter().map(|g| g.number).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5]
        );
        assert_eq!(pgn.stopped, None);
    }

    #[test]
    fn variations_start_from_the_position_before_their_move() {
        let game = one(
            "1. e4 e5 (1... c5 2. Nf3 (2. c3 d5) d6) (1... e6) 2. Nf3 $1 {main} ( 2. f4!? exf4 ) Nc6 *",
        );
        assert_eq!(
            uci(&game.start, &game.moves),
            ["e2e4", "e7e5", "g1f3", "b8c6"]
        );
        let after_e4 = game.positions()[1].clone();
        let e5 = &game.moves[1];
        assert_eq!(e5.variations.len(), 2);
        assert_eq!(uci(&after_e4, &e5.variations[0]), ["c7c5", "g1f3", "d7d6"]);
        assert_eq!(uci(&after_e4, &e5.variations[1]), ["e7e6"]);
        // The nested variation replaces 2. Nf3 inside the Sicilian.
        let mut sicilian = after_e4.clone();
        sicilian.play(e5.variations[0][0].mv);
        assert_eq!(
            uci(&sicilian, &e5.variations[0][1].variations[0]),
            ["c2c3", "d7d5"]
        );
        let nf3 = &game.moves[2];
        assert_eq!(nf3.nags, [1]);
        assert_eq!(nf3.comments, ["main"]);
        assert_eq!(nf3.variations[0][0].nags, [5]);
        assert_eq!(
            uci(&game.positions()[2], &nf3.variations[0]),
            ["f2f4", "e5f4"]
        );
    }

    #[test]
    fn an_illegal_move_in_a_variation_drops_only_the_variation() {
        let game = one("1. e4 e5 (1... Ke2 2. d4) 2. Nf3 *");
        assert_eq!(game.moves.len(), 3);
        assert!(game.moves[1].variations.is_empty());
        assert_eq!(game.warnings.len(), 1, "{:?}", game.warnings);
        assert!(game.warnings[0].contains("Ke2"), "{:?}", game.warnings);
    }

    #[test]
    fn an_illegal_move_names_game_ply_and_line_and_the_rest_is_read() {
        let text = "[Event \"a\"]\n1. e4 e5 *\n\n[Event \"b\"]\n\n1. e4 e5 2. Nf3 Nc6\n3. Bb5 Nf3 4. O-O *\n\n[Event \"c\"]\n1. d4 *\n";
        let pgn = read(text);
        assert_eq!(pgn.games.len(), 3);
        let err = pgn.games[1].as_ref().unwrap_err();
        assert_eq!(err.game, 2);
        assert_eq!(err.ply, Some(6));
        assert_eq!(err.move_number.as_deref(), Some("3..."));
        assert_eq!(err.line, 7);
        assert_eq!(
            err.to_string(),
            "game 2, ply 6 (3...), line 7: illegal move \"Nf3\""
        );
        assert_eq!(pgn.games[2].as_ref().unwrap().tag("Event"), Some("c"));
    }

    #[test]
    fn a_fen_start_with_black_to_move() {
        let game = one(
            "[SetUp \"1\"]\n[FEN \"6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 30\"]\n\n30... h6 31. Rd8# 1-0",
        );
        assert_eq!(game.start.side_to_move(), Color::Black);
        assert_eq!(game.moves.len(), 2);
        assert_eq!(move_number(&game.start, 1), "30...");
        assert_eq!(move_number(&game.start, 2), "31.");
        let bad = read("[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n1. e4 *");
        let err = bad.games[0].as_ref().unwrap_err();
        assert!(matches!(*err.kind, GameErrorKind::Fen { .. }), "{err}");
    }

    #[test]
    fn chess960_castling_by_shredder_or_x_fen() {
        // King on b1, rooks on a1 and h1 (and a8/h8 for Black): O-O-O and O-O.
        for rights in ["HAha", "KQkq"] {
            let text = format!(
                "[Variant \"Chess960\"]\n[FEN \"rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w {rights} - 0 1\"]\n\n1. O-O-O O-O *"
            );
            let game = one(&text);
            assert!(game.chess960);
            let end = game.positions().pop().unwrap();
            assert_eq!(
                format!("{end}").split(' ').next().unwrap(),
                "r4rk1/pppppppp/8/8/8/8/PPPPPPPP/2KR3R",
                "{rights}"
            );
        }
        let other = read("[Variant \"Atomic\"]\n1. e4 *");
        assert!(matches!(
            *other.games[0].as_ref().unwrap_err().kind,
            GameErrorKind::Variant(_)
        ));
    }

    #[test]
    fn moves_in_other_languages_and_notations() {
        // Russian, German and French letters, ICCF numbers and long algebraic.
        let ru = one("1. e4 e5 2. Кf3 Кc6 3. Сb5 a6 *");
        let de = one("1. e4 e5 2. Sf3 Sc6 3. Lb5 a6 *");
        let fr = one("1. e4 e5 2. Cf3 Cc6 3. Fb5 a6 *");
        let iccf = one("1. 5254 5755 2. 7163 2836 3. 6125 1716 *");
        let long = one("1. e2-e4 e7-e5 2. Ng1-f3 Nb8-c6 3. Bf1-b5 a7-a6 *");
        let expected = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"];
        for game in [ru, de, fr, iccf, long] {
            assert_eq!(uci(&game.start, &game.moves), expected);
        }
        // Figurines and a German game read with German preferred.
        let figurine = one("1. e4 e5 2. ♘f3 ♞c6 *");
        assert_eq!(figurine.moves.len(), 4);
        let pgn = read_pgn("1. e4 e5 2. Sf3 *", &ReadLimits::default(), Lang::De).unwrap();
        assert!(pgn.games[0].is_ok());
    }

    #[test]
    fn escapes_percent_lines_semicolons_and_glyphs() {
        let game = one(
            "% a comment line\n[Event \"say \\\"hi\\\" \\\\ there\"]\n1. e4 ; rest of line e5\n1... e5 ?! 2. Nf3 += $14 *",
        );
        assert_eq!(game.tag("Event"), Some("say \"hi\" \\ there"));
        assert_eq!(game.moves[0].comments, ["rest of line e5"]);
        assert_eq!(game.moves[1].nags, [6]);
        assert_eq!(game.moves[2].nags, [14, 14]);
    }

    #[test]
    fn not_a_pgn() {
        for text in [
            "",
            "   \n\n",
            "Hello, this is a letter to a friend.",
            "{only a comment}",
        ] {
            let err = read_pgn(text, &ReadLimits::default(), Lang::En).unwrap_err();
            assert!(matches!(err, PgnError::NotPgn(_)), "{text:?}: {err}");
        }
        assert!(decode(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").is_err());
        // Latin-1 is read.
        let text = decode(b"[White \"M\xfcller\"]\n1. e4 *").unwrap();
        assert_eq!(one(&text).tag("White"), Some("Müller"));
    }

    #[test]
    fn limits_give_a_partial_result_that_says_where() {
        let games = "1. e4 e5 *\n".repeat(50);
        let limits = ReadLimits {
            max_games: 10,
            ..ReadLimits::default()
        };
        let pgn = read_pgn(&games, &limits, Lang::En).unwrap();
        assert_eq!(pgn.games.len(), 10);
        assert_eq!(pgn.stopped, Some(Stopped::Games { limit: 10 }));

        let limits = ReadLimits {
            max_plies: 3,
            ..ReadLimits::default()
        };
        let pgn = read_pgn(OPERA, &limits, Lang::En).unwrap();
        let game = pgn.games[0].as_ref().unwrap();
        assert_eq!(game.moves.len(), 3);
        assert!(game.truncated);
        assert_eq!(game.result.as_deref(), Some("1-0"));

        let limits = ReadLimits {
            max_bytes: 25,
            ..ReadLimits::default()
        };
        let pgn = read_pgn(&games, &limits, Lang::En).unwrap();
        assert_eq!(pgn.games.len(), 2);
        assert_eq!(
            pgn.stopped,
            Some(Stopped::Bytes {
                limit: 25,
                read: 22
            })
        );
        assert!(pgn.stopped.unwrap().to_string().contains("first 22"));
    }

    #[test]
    fn huge_comments_are_cut() {
        let text = format!("1. e4 {{{}}} e5 *", "x".repeat(2_000_000));
        let game = one(&text);
        assert_eq!(game.moves.len(), 2);
        assert_eq!(
            game.moves[0].comments[0].chars().count(),
            MAX_COMMENT_CHARS + 1
        );
    }
}

//! `boardscan library …`: the library from the command line.

use std::{io::Write, path::PathBuf};

use super::{
    transfer::{self, ExportFormat},
    Library, LibraryError, ScanQuery,
};

/// Options of `boardscan library`.
#[derive(Debug, clap::Args)]
pub struct LibraryArgs {
    /// The library: a SQLite file or a `postgres://` URL (default: the user's data folder).
    #[arg(long, env = "BOARDSCAN_LIBRARY", global = true)]
    pub library: Option<String>,
    #[command(subcommand)]
    pub command: LibraryCommand,
}

/// Filters shared by `list` and `export`.
#[derive(Debug, Default, clap::Args)]
pub struct Filters {
    /// The exact position.
    #[arg(long)]
    fen: Option<String>,
    /// The same placement, any side to move.
    #[arg(long)]
    placement: Option<String>,
    /// A material signature (`KRPPvKR`), or `KRvKR` for every rook ending.
    #[arg(long)]
    material: Option<String>,
    /// Only corrected boards.
    #[arg(long)]
    corrected: bool,
}

impl Filters {
    fn query(&self, page: u64, per_page: u64) -> ScanQuery {
        ScanQuery {
            page,
            per_page,
            fen: self.fen.clone(),
            placement: self.placement.clone(),
            material: self.material.clone(),
            corrected: self.corrected.then_some(true),
        }
    }
}

#[derive(Debug, clap::Subcommand)]
pub enum LibraryCommand {
    /// List scans, newest first: `id<TAB>board<TAB>FEN<TAB>source` per board (`*` after a corrected FEN).
    List {
        #[command(flatten)]
        filters: Filters,
        /// Page, from 1.
        #[arg(long, default_value_t = 1)]
        page: u64,
        /// Scans per page.
        #[arg(long, default_value_t = 50)]
        per_page: u64,
        /// Print the page as JSON, as the API returns it.
        #[arg(long)]
        json: bool,
    },
    /// Print one scan as JSON.
    Show {
        /// The scan's id.
        id: i64,
    },
    /// Write every board (of the matching scans) as PGN, EPD or CSV.
    Export {
        #[arg(long, value_enum)]
        format: ExportFormat,
        /// Output file (default: standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        filters: Filters,
    },
    /// Add a batch's CSV or NDJSON output to the library (one entry per image or PDF page); never removes a scan.
    Import {
        /// A `boardscan batch` output, CSV or NDJSON.
        file: PathBuf,
    },
    /// Write corrected boards as labelled examples (images + labels.csv) for `eval` and training.
    ExportCorrections {
        /// The folder to write (created if need be).
        dir: PathBuf,
    },
    /// What people corrected: the most-corrected pieces and sources, and likely model errors.
    Report,
    /// Show the library's retention (how many scans it keeps, stored in the library), or set it.
    Retention {
        /// Keep at most this many scans (0: no limit); past it, saving a
        /// recognition removes the oldest uncorrected scans.
        max_scans: Option<u64>,
    },
    /// Learn your own physical set from photos of it in the starting position, and keep it by name (read with `scan --set NAME`).
    LearnSet {
        /// The set's name.
        name: String,
        /// Photos of the set in the starting position, taken as you will take others (one or more; two from different angles help).
        #[arg(required = true)]
        photos: Vec<PathBuf>,
        /// Which side is nearer the camera in every photo (default: the side the white pieces are on).
        #[arg(long)]
        view: Option<crate::recognize::View>,
    },
    /// List the piece sets learnt: `name<TAB>photos<TAB>learnt at (ms since the epoch)`.
    Sets,
    /// Forget a piece set.
    ForgetSet {
        /// The set's name.
        name: String,
    },
    /// Delete one scan, or every scan with --all.
    Delete {
        /// The scan's id.
        #[arg(required_unless_present = "all", conflicts_with = "all")]
        id: Option<i64>,
        /// Every scan.
        #[arg(long)]
        all: bool,
    },
}

/// Runs one library command, printing to `out`.
pub fn run(args: &LibraryArgs, out: &mut dyn Write) -> Result<(), LibraryError> {
    let library = Library::open_or_default(args.library.as_deref())?;
    let io = |e: std::io::Error| LibraryError::Io {
        location: "standard output".into(),
        message: e.to_string(),
    };
    match &args.command {
        LibraryCommand::List {
            filters,
            page,
            per_page,
            json,
        } => {
            let listed = library.list(&filters.query(*page, *per_page))?;
            if *json {
                writeln!(
                    out,
                    "{}",
                    serde_json::to_string(&listed).unwrap_or_default()
                )
                .map_err(io)?;
                return Ok(());
            }
            for scan in &listed.scans {
                let mut source = scan.source_name.clone().unwrap_or_default();
                if let Some(page) = scan.page {
                    source.push_str(&format!("#page={page}"));
                }
                for board in &scan.boards {
                    let mark = if board.corrected { " *" } else { "" };
                    writeln!(
                        out,
                        "{}\t{}\t{}{mark}\t{source}",
                        scan.id, board.index, board.fen
                    )
                    .map_err(io)?;
                }
            }
            eprintln!(
                "page {}, {} a page; {} scans match",
                listed.page, listed.per_page, listed.total
            );
        }
        LibraryCommand::Show { id } => {
            let scan = library.get(*id)?;
            writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&scan).unwrap_or_default()
            )
            .map_err(io)?;
        }
        LibraryCommand::Export {
            format,
            output,
            filters,
        } => {
            let query = filters.query(1, super::MAX_PER_PAGE);
            let boards = match output {
                Some(path) => {
                    let file = std::fs::File::create(path).map_err(|e| LibraryError::Io {
                        location: path.display().to_string(),
                        message: e.to_string(),
                    })?;
                    let mut file = std::io::BufWriter::new(file);
                    let n = transfer::export(&library, &query, *format, &mut file)?;
                    file.flush().map_err(io)?;
                    n
                }
                None => transfer::export(&library, &query, *format, out)?,
            };
            eprintln!("exported {boards} boards");
        }
        LibraryCommand::Import { file } => {
            let imported = transfer::import(&library, file)?;
            writeln!(
                out,
                "imported {} new scans, {} already in the library, {} records without a board",
                imported.created, imported.refreshed, imported.skipped
            )
            .map_err(io)?;
            let (held, max) = (library.count()?, library.max_scans()?);
            if max > 0 && held > max {
                writeln!(
                    out,
                    "the library holds {held} scans, over its retention of {max}: the next recognition saved removes the {} oldest uncorrected ones (see `boardscan library retention`)",
                    held - max
                )
                .map_err(io)?;
            }
        }
        LibraryCommand::Retention { max_scans } => {
            if let Some(max) = max_scans {
                library.set_max_scans(*max)?;
            }
            writeln!(
                out,
                "the library {} keeps {}; it holds {} scans",
                library.location(),
                retention_text(library.max_scans()?),
                library.count()?
            )
            .map_err(io)?;
        }
        LibraryCommand::ExportCorrections { dir } => {
            let exported = transfer::export_corrections(&library, dir)?;
            writeln!(
                out,
                "wrote {} corrected boards to {} ({} corrected boards have no picture)",
                exported.written,
                dir.display(),
                exported.without_picture
            )
            .map_err(io)?;
        }
        LibraryCommand::Report => {
            write!(out, "{}", transfer::correction_report(&library)?).map_err(io)?;
        }
        LibraryCommand::LearnSet { name, photos, view } => {
            let set = learn_set(&library, name, photos, *view)?;
            writeln!(
                out,
                "learnt the set {:?} from {} photos; read with `boardscan scan --set {:?}`",
                set.name, set.photos, set.name
            )
            .map_err(io)?;
        }
        LibraryCommand::Sets => {
            for set in library.sets()? {
                writeln!(out, "{}\t{}\t{}", set.name, set.photos, set.created_ms).map_err(io)?;
            }
        }
        LibraryCommand::ForgetSet { name } => {
            library.delete_set(name)?;
            writeln!(out, "forgot the set {name:?}").map_err(io)?;
        }
        LibraryCommand::Delete { id, all } => {
            if *all {
                writeln!(out, "deleted {} scans", library.delete_all()?).map_err(io)?;
            } else if let Some(id) = id {
                library.delete(*id)?;
                writeln!(out, "deleted scan {id}").map_err(io)?;
            }
        }
    }
    Ok(())
}

/// Learns the set `name` from the photos at `paths` and keeps it.
fn learn_set(
    library: &Library,
    name: &str,
    paths: &[PathBuf],
    view: Option<crate::recognize::View>,
) -> Result<super::PieceSet, LibraryError> {
    let photos = paths
        .iter()
        .map(|path| {
            std::fs::read(path).map_err(|e| LibraryError::Io {
                location: path.display().to_string(),
                message: e.to_string(),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let bad = |message: String| LibraryError::BadInput(message);
    let recognizer =
        crate::recognize::Recognizer::bundled(1, crate::vision::DecodeLimits::default())
            .map_err(|e| bad(e.to_string()))?;
    let slices: Vec<&[u8]> = photos.iter().map(Vec::as_slice).collect();
    let adaptation = recognizer
        .learn_set(&slices, view)
        .map_err(|e| bad(e.to_string()))?;
    library.save_set(name, adaptation.photos, &adaptation.to_bytes())
}

/// A retention as people read it: `at most 100000 scans`, or `every scan`.
pub fn retention_text(max_scans: u64) -> String {
    match max_scans {
        0 => "every scan (no retention limit)".into(),
        max => format!("at most {max} scans (the oldest uncorrected go first)"),
    }
}

//! `standing-cells`: the training data of the standing-piece classifier,
//! cut by the same code that cuts a photo's cells when it is read.

use std::{
    collections::HashMap,
    fs::File,
    io::{BufWriter, Write},
    path::{Path, PathBuf},
    process::ExitCode,
};

use anyhow::{bail, Context};
use boardscan::{
    accuracy,
    recognize::CLASSES,
    vision::{self, DecodeLimits, STANDING_HEIGHT, STANDING_LEN, STANDING_WIDTH},
};
use rayon::prelude::*;

/// Options of `standing-cells`.
#[derive(clap::Args)]
pub struct StandingCellsArgs {
    /// A folder of renders with `labels.csv` (`file,fen,…`, White's FEN) and
    /// `corners.csv` (`file,a8x,a8y,h8x,h8y,h1x,h1y,a1x,a1y`), as
    /// `training/render_physical.py` writes them.
    folder: PathBuf,
    /// Where to write: `OUT.cells.npy` (uint8, `[N, 3, 64, 32]`),
    /// `OUT.labels.npy` (class indexes, int64) and `OUT.images.npy` (the
    /// row of each cell's picture in `labels.csv`, int64).
    out: PathBuf,
}

/// `standing-cells`: every square of every labelled render, as a standing
/// cell and its class.
pub fn standing_cells(args: &StandingCellsArgs) -> anyhow::Result<ExitCode> {
    let labels = accuracy::read_labels(&args.folder)?;
    let corners = read_corners(&args.folder.join("corners.csv"))?;
    let limits = DecodeLimits::default();
    let cut: Vec<(usize, Vec<u8>, Vec<i64>)> = labels
        .par_iter()
        .enumerate()
        .filter_map(|(row, label)| {
            let name = label.file.file_name()?.to_string_lossy().into_owned();
            let result = (|| -> anyhow::Result<(Vec<u8>, Vec<i64>)> {
                let fen = label.board_fen.as_deref().context("no FEN")?;
                let quad = corners.get(&name).context("not in corners.csv")?;
                let bytes = std::fs::read(&label.file)?;
                let image = vision::decode(&bytes, limits)?;
                let cells =
                    vision::standing_cells(&image, *quad).context("no camera fits the corners")?;
                let classes = fen_classes(fen)?;
                Ok((
                    cells.iter().map(|v| (v * 255.0).round() as u8).collect(),
                    classes,
                ))
            })();
            match result {
                Ok((cells, classes)) => Some((row, cells, classes)),
                Err(e) => {
                    eprintln!("{}: {e:#}", label.file.display());
                    None
                }
            }
        })
        .collect();
    let count = cut.len() * 64;
    let shape = [count, 3, STANDING_HEIGHT, STANDING_WIDTH];
    let mut cells = npy_writer(&args.out, "cells", "|u1", &shape)?;
    for (_, pixels, _) in &cut {
        cells.write_all(pixels)?;
    }
    cells.flush()?;
    let mut classes = npy_writer(&args.out, "labels", "<i8", &[count])?;
    let mut images = npy_writer(&args.out, "images", "<i8", &[count])?;
    for (row, _, squares) in &cut {
        for class in squares {
            classes.write_all(&class.to_le_bytes())?;
            images.write_all(&(*row as i64).to_le_bytes())?;
        }
    }
    classes.flush()?;
    images.flush()?;
    eprintln!(
        "{} pictures, {count} cells of {STANDING_LEN} values",
        cut.len()
    );
    Ok(super::success_if(cut.len() == labels.len()))
}

/// The class of each square of a board FEN, a8 first, row by row.
fn fen_classes(fen: &str) -> anyhow::Result<Vec<i64>> {
    let mut classes = Vec::with_capacity(64);
    for ch in fen.chars() {
        match ch {
            '/' => {}
            '1'..='8' => classes.extend(std::iter::repeat_n(0, ch as usize - '0' as usize)),
            _ => match CLASSES.iter().position(|c| *c == Some(ch)) {
                Some(index) => classes.push(index as i64),
                None => bail!("{ch:?} in {fen:?} is not a piece"),
            },
        }
    }
    if classes.len() != 64 {
        bail!("{fen:?} has {} squares, not 64", classes.len());
    }
    Ok(classes)
}

/// `corners.csv`: each picture's a8, h8, h1 and a1 corners, in that order,
/// which is the cell order `standing_cells` cuts in.
fn read_corners(path: &Path) -> anyhow::Result<HashMap<String, [[f32; 2]; 4]>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut corners = HashMap::new();
    for (line, row) in text.lines().enumerate().skip(1) {
        let fields: Vec<&str> = row.split(',').map(str::trim).collect();
        if fields.len() != 9 {
            bail!("{}:{}: expected 9 fields", path.display(), line + 1);
        }
        let v: Vec<f32> = fields[1..]
            .iter()
            .map(|f| f.parse())
            .collect::<Result<_, _>>()
            .with_context(|| format!("{}:{}", path.display(), line + 1))?;
        corners.insert(
            fields[0].to_string(),
            [[v[0], v[1]], [v[2], v[3]], [v[4], v[5]], [v[6], v[7]]],
        );
    }
    Ok(corners)
}

/// A writer of a NumPy `.npy` file `OUT.NAME.npy` whose header says `dtype`
/// and `shape`; the caller writes the data, C order.
fn npy_writer(
    out: &Path,
    name: &str,
    dtype: &str,
    shape: &[usize],
) -> anyhow::Result<BufWriter<File>> {
    let path = PathBuf::from(format!("{}.{name}.npy", out.display()));
    let mut file = BufWriter::new(
        File::create(&path).with_context(|| format!("creating {}", path.display()))?,
    );
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    let shape = if dims.len() == 1 {
        format!("({},)", dims[0])
    } else {
        format!("({})", dims.join(", "))
    };
    let mut header = format!("{{'descr': '{dtype}', 'fortran_order': False, 'shape': {shape}, }}");
    // Magic (6) + version (2) + length (2) + header, padded to 64 with '\n' last.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    file.write_all(b"\x93NUMPY\x01\x00")?;
    file.write_all(&(header.len() as u16).to_le_bytes())?;
    file.write_all(header.as_bytes())?;
    Ok(file)
}

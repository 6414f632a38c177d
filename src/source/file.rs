//! Which files a batch reads, and reading an input without ever blocking on
//! a named pipe or a device.

use std::{
    fs::{self, File, FileType, OpenOptions},
    io::{self, Read},
    path::Path,
};

/// Extensions (compared case-insensitively) of the files a batch reads: the
/// formats the image decoder knows, and PDF. Which of the two a file is goes
/// by its content ([`crate::source::InputKind`]), not by this name.
pub const INPUT_EXTENSIONS: &[&str] = &["png", "jpg", "jpeg", "webp", "gif", "pdf"];

/// Whether the name of `path` ends in one of [`INPUT_EXTENSIONS`].
pub fn has_input_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|ext| ext.to_str())
        .is_some_and(|ext| INPUT_EXTENSIONS.iter().any(|e| e.eq_ignore_ascii_case(ext)))
}

/// The largest file read as one input (an image, a PDF, a batch output, a
/// file an import names): a larger one is refused, not read into memory.
pub const MAX_INPUT_BYTES: u64 = 1 << 30;

/// Why a file of this type is not read, or `None` for a regular file.
pub fn not_regular(file_type: FileType) -> Option<&'static str> {
    if file_type.is_file() {
        return None;
    }
    if file_type.is_dir() {
        return Some("not a regular file (a folder)");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return Some("not a regular file (a named pipe)");
        }
        if file_type.is_socket() {
            return Some("not a regular file (a socket)");
        }
        if file_type.is_block_device() || file_type.is_char_device() {
            return Some("not a regular file (a device)");
        }
    }
    Some("not a regular file")
}

/// The bytes of the regular file at `path` (symbolic links followed), at
/// most [`MAX_INPUT_BYTES`] of them.
///
/// Anything else (a named pipe, socket, device or folder) is an error, found
/// before the file is opened; the open itself does not wait for a writer
/// should the file be swapped for a pipe in between. A larger file is an
/// error too, also when it grows while being read.
pub fn read_regular_file(path: &Path) -> io::Result<Vec<u8>> {
    refuse_special(&fs::metadata(path)?.file_type())?;
    let file = open_nonblocking(path, OpenOptions::new().read(true))?;
    let metadata = file.metadata()?;
    refuse_special(&metadata.file_type())?;
    let too_large = |bytes: u64| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{bytes} bytes, over the limit of {} MiB for one input",
                MAX_INPUT_BYTES >> 20
            ),
        )
    };
    if metadata.len() > MAX_INPUT_BYTES {
        return Err(too_large(metadata.len()));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    file.take(MAX_INPUT_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Fails with a clear message when `path` exists and is not a regular file
/// (writing to a named pipe would wait for a reader, forever).
pub fn check_output(path: &Path) -> anyhow::Result<()> {
    if let Ok(metadata) = fs::metadata(path) {
        if let Some(why) = not_regular(metadata.file_type()) {
            anyhow::bail!(
                "output {}: {why}; name a regular file, or leave out -o for standard output",
                path.display()
            );
        }
    }
    Ok(())
}

/// Opens `path` with `options`; on Unix with `O_NONBLOCK`, which makes no
/// difference to a regular file but keeps the open of a named pipe from
/// waiting for the other end.
pub fn open_nonblocking(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

fn refuse_special(file_type: &FileType) -> io::Result<()> {
    match not_regular(*file_type) {
        None => Ok(()),
        Some(why) => Err(io::Error::new(io::ErrorKind::InvalidInput, why)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_are_case_insensitive() {
        for name in [
            "a.png",
            "b.PNG",
            "c.Jpeg",
            "d.jpg",
            "e.webp",
            "f.GIF",
            "dir.x/g.png",
            "book.pdf",
            "BOOK.PDF",
        ] {
            assert!(has_input_extension(Path::new(name)), "{name}");
        }
        for name in [
            "README.md",
            "labels.csv",
            "png",
            ".png.txt",
            "noext",
            "a.pdf.txt",
        ] {
            assert!(!has_input_extension(Path::new(name)), "{name}");
        }
    }

    #[test]
    fn a_device_is_not_read() {
        let err = read_regular_file(Path::new("/dev/zero")).unwrap_err();
        assert!(err.to_string().contains("a device"), "{err}");
    }

    #[test]
    fn a_file_over_the_limit_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sparse.png");
        // Sparse: no disk is used.
        File::create(&path)
            .unwrap()
            .set_len(MAX_INPUT_BYTES + 1)
            .unwrap();
        let err = read_regular_file(&path).unwrap_err();
        assert!(err.to_string().contains("over the limit"), "{err}");
    }

    #[test]
    fn a_folder_is_not_read() {
        let dir = std::env::temp_dir();
        let err = read_regular_file(&dir).unwrap_err();
        assert!(err.to_string().contains("a folder"), "{err}");
    }
}
